// PACK (spec/VCODE.md §6.8): the flagged elements in order, and a descriptor of how many each
// segment kept. Two parts: per-segment flag counts (a segmented reduction), then compaction,
// in which each block of elements is compacted to where the flags before it end.
#include <limits>
#include <type_traits>
#include <vector>

#include "families/families.hpp"
#include "simd/compact.hpp"

namespace cvl::cpu {
namespace {

using I32 = std::int32_t;
using Flag = std::uint8_t;

I32 count_flags(const Flag* flags, std::size_t lo, std::size_t hi) {
  I32 count = 0;
  for (std::size_t i = lo; i < hi; ++i) count += flags[i];
  return count;
}

// The flag count of every segment, split by elements like reduce (scan_reduce.cpp).
Vector segment_counts(const Parallel& par, const Flag* flags, const SegmentView& sd) {
  Vector counts = allocate(Type::Int, sd.segments);
  I32* count = elements<I32>(counts);
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  // Room for the most blocks for_each_part may cut (its team is decided again inside).
  const std::size_t blocks = blocks_for_team(par.threads);
  std::vector<I32> head(blocks, 0);
  std::vector<std::size_t> head_segment(blocks, none);
  for_each_part(par, sd, kMemoryBoundThreshold, [&](const Part& p, std::size_t b) {
    if (p.has_head()) {
      head[b] = count_flags(flags, p.begin, p.head_end);
      head_segment[b] = p.first - 1;
    }
    for (std::size_t k = p.first; k < p.last; ++k)
      count[k] = count_flags(flags, sd.start(k), std::min(sd.start(k + 1), p.end));
  });
  for (std::size_t b = 0; b < blocks; ++b)
    if (head_segment[b] != none) count[head_segment[b]] += head[b];
  return counts;
}

// Copies the flagged elements of [lo, hi) to out[0...], with AVX-512 where the CPU has it.
template <class Bits>
void compact(const Bits* in, const Flag* flags, std::size_t lo, std::size_t hi, Bits* out) {
  if constexpr (sizeof(Bits) == 4 || sizeof(Bits) == 8) {
    using Word = std::conditional_t<sizeof(Bits) == 4, std::uint32_t, std::uint64_t>;
    static const simd::CompactFunction<Word> vectorized = [] {
      if constexpr (sizeof(Bits) == 4) return simd::compact32();
      else return simd::compact64();
    }();
    if (vectorized) {
      vectorized(reinterpret_cast<const Word*>(in) + lo, flags + lo, hi - lo,
                 reinterpret_cast<Word*>(out));
      return;
    }
  }
  simd::compact_portable(in + lo, flags + lo, hi - lo, out);
}

}  // namespace

std::pair<Vector, Segdes> pack(const Context& ctx, Vector v, Vector flag_vector,
                               const SegmentView& sd) {
  const Parallel& par = ctx.par;
  const std::size_t n = v.length;
  const Flag* flags = elements<Flag>(flag_vector);
  Segdes packed_sd = segdes_from_lengths(par, segment_counts(par, flags, sd), "PACK");
  Vector out = allocate(v.type, packed_sd.total);
  with_element_bits(v.type, [&]<class Bits>() {
    const Bits* in = elements<Bits>(v);
    Bits* result = elements<Bits>(out);
    const int team = par.team_for(n, kMemoryBoundThreshold);
    if (team <= 1) {
      compact(in, flags, 0, n, result);
      return;
    }
    const std::size_t blocks = blocks_for_team(team);
    std::vector<std::size_t> before(blocks + 1, 0);
    run_blocks(team, blocks, [&](std::size_t b) {
      before[b + 1] = static_cast<std::size_t>(count_flags(
          flags, block_begin(n, b, blocks), block_begin(n, b + 1, blocks)));
    });
    for (std::size_t b = 1; b <= blocks; ++b) before[b] += before[b - 1];
    run_blocks(team, blocks, [&](std::size_t b) {
      compact(in, flags, block_begin(n, b, blocks), block_begin(n, b + 1, blocks),
              result + before[b]);
    });
  });
  return {std::move(out), std::move(packed_sd)};
}

}  // namespace cvl::cpu
