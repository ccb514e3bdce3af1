// PACK (spec/VCODE.md §6.8): the flagged elements in order, and a descriptor of how many each
// segment kept. Two parts: per-segment flag counts (a segmented reduction), then compaction,
// in which each thread compacts its block of elements to where the flags before it end.
#include <limits>
#include <vector>

#include "families.hpp"

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
Vector segment_counts(const Parallel& par, const Flag* flags, const SegView& sd) {
  Vector counts = allocate(Type::Int, sd.segments);
  I32* count = elements<I32>(counts);
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  auto slots = static_cast<std::size_t>(std::max(par.threads, 1));
  std::vector<I32> head(slots, 0);
  std::vector<std::size_t> head_segment(slots, none);
  for_each_part(par, sd, kMemoryBoundThreshold, [&](const Part& p) {
    auto self = static_cast<std::size_t>(omp_get_thread_num());
    if (p.has_head()) {
      head[self] = count_flags(flags, p.begin, p.head_end);
      head_segment[self] = p.first - 1;
    }
    for (std::size_t k = p.first; k < p.last; ++k)
      count[k] = count_flags(flags, sd.start(k), std::min(sd.start(k + 1), p.end));
  });
  for (std::size_t t = 0; t < slots; ++t)
    if (head_segment[t] != none) count[head_segment[t]] += head[t];
  return counts;
}

// Copies the flagged elements of [lo, hi) to out[0...]. Branch-free: every element is stored
// and the cursor advances over flagged ones only; it stops at the last flagged element so that
// no store lands beyond this block's share of the output.
template <class Bits>
void compact(const Bits* in, const Flag* flags, std::size_t lo, std::size_t hi, Bits* out) {
  while (hi > lo && !flags[hi - 1]) --hi;
  std::size_t cursor = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    out[cursor] = in[i];
    cursor += flags[i];
  }
}

}  // namespace

std::pair<Vector, Segdes> pack(const Context& ctx, Vector v, Vector flag_vector,
                               const SegView& sd) {
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
    std::vector<std::size_t> before(static_cast<std::size_t>(team) + 1, 0);
#pragma omp parallel num_threads(team)
    {
      const int t = omp_get_thread_num(), size = omp_get_num_threads();
      const auto self = static_cast<std::size_t>(t);
      const std::size_t lo = block_begin(n, t, size), hi = block_begin(n, t + 1, size);
      before[self + 1] = static_cast<std::size_t>(count_flags(flags, lo, hi));
#pragma omp barrier
#pragma omp single
      for (std::size_t u = 1; u <= static_cast<std::size_t>(size); ++u) before[u] += before[u - 1];
      compact(in, flags, lo, hi, result + before[self]);
    }
  });
  return {std::move(out), std::move(packed_sd)};
}

}  // namespace cvl::cpu
