// Segment descriptors: built from a lengths vector (MAKE_SEGDES, PACK); LENGTHS computes the
// lengths back from the offsets.
#include <algorithm>
#include <string>
#include <vector>

#include "memory/storage.hpp"

namespace cvl::cpu {
namespace {

// Writes offsets[k + 1] = offsets[k] + lengths[k] over [lo, hi) starting from `start`; returns
// the running sum, or records the first negative length in `fault`. An offset past 32 bits is
// written wrapped; the caller rejects a total that large. The sign bits are gathered without a
// branch and searched only when one is set: the loop is one add and one store per segment.
std::int64_t prefix_lengths(const std::int32_t* lengths, SegOffset* offsets, std::size_t lo,
                            std::size_t hi, std::int64_t start, IndexFault& fault) {
  std::int64_t sum = start;
  std::int32_t signs = 0;
  for (std::size_t k = lo; k < hi; ++k) {
    signs |= lengths[k];
    sum += lengths[k];
    offsets[k + 1] = static_cast<SegOffset>(sum);
  }
  if (signs < 0 && !fault.found()) {
    const std::int32_t* negative =
        std::find_if(lengths + lo, lengths + hi, [](std::int32_t l) { return l < 0; });
    const auto k = static_cast<std::size_t>(negative - lengths);
    fault = {k, lengths[k], 0};
  }
  return sum;
}

std::int64_t sum_lengths(const std::int32_t* lengths, std::size_t lo, std::size_t hi) {
  std::int64_t sum = 0;
  for (std::size_t k = lo; k < hi; ++k) sum += lengths[k];
  return sum;
}

// The length every one of the m segments has, or 0 when they differ (or there are none). Only
// lengths that could be uniform are read, up to the first that differs: flattened programs
// often make descriptors of one-element segments, on which DIST and INDEX are copies.
std::int64_t uniform_length(const std::int32_t* lengths, std::size_t m, std::int64_t total) {
  if (m == 0 || total <= 0 || total % static_cast<std::int64_t>(m) != 0) return 0;
  const std::int64_t length = total / static_cast<std::int64_t>(m);
  const bool all = std::all_of(lengths, lengths + m, [&](std::int32_t l) { return l == length; });
  return all ? length : 0;
}

}  // namespace

SegmentView view(const Segdes& sd) {
  static const SegOffset no_offsets[1] = {0};
  auto* storage = static_cast<SegdesStorage*>(sd.storage.get());
  if (!storage) return SegmentView{0, 0, no_offsets, nullptr, nullptr, 0};
  auto* offsets = reinterpret_cast<const SegOffset*>(storage->offsets.bytes());
  return SegmentView{storage->segments, offsets[storage->segments], offsets, nullptr, nullptr,
                 storage->uniform};
}

Segdes segdes_from_lengths(const Parallel& par, const Vector& lengths_vector, const char* op_name) {
  const std::size_t m = lengths_vector.length;
  const std::int32_t* lengths = elements<std::int32_t>(lengths_vector);
  auto storage = std::make_shared<SegdesStorage>(m);
  auto* offsets = reinterpret_cast<SegOffset*>(storage->offsets.bytes());
  offsets[0] = 0;

  IndexFault fault;
  std::int64_t total = 0;
  int team = par.team_for(m, kMemoryBoundThreshold);
  if (team <= 1) {
    total = prefix_lengths(lengths, offsets, 0, m, 0, fault);
  } else {
    // Two passes: block sums, then each block's prefix from the sum of the blocks before it.
    const std::size_t blocks = blocks_for_team(team);
    std::vector<std::int64_t> block_start(blocks + 1, 0);
    run_blocks(team, blocks, [&](std::size_t b) {
      block_start[b + 1] = sum_lengths(lengths, block_begin(m, b, blocks), block_begin(m, b + 1, blocks));
    });
    for (std::size_t b = 0; b < blocks; ++b) block_start[b + 1] += block_start[b];
    run_blocks(team, blocks, [&](std::size_t b) {
      IndexFault local;
      prefix_lengths(lengths, offsets, block_begin(m, b, blocks), block_begin(m, b + 1, blocks),
                     block_start[b], local);
      fault.merge(local);
    });
    total = block_start[blocks];
  }
  if (fault.found())
    throw Error(std::string(op_name) + ": negative segment length " + std::to_string(fault.index) +
                " at position " + std::to_string(fault.position));
  if (static_cast<std::uint64_t>(total) > kMaxVectorLength)  // the offsets have 32 bits
    throw Error(vector_too_long_message(static_cast<std::uint64_t>(total)));
  storage->uniform = uniform_length(lengths, m, total);
  return Segdes{m, static_cast<std::size_t>(total), std::move(storage)};
}

Vector segment_lengths(const Parallel& par, const SegmentView& sd) {
  Vector out = allocate(Type::Int, sd.segments);
  std::int32_t* lengths = elements<std::int32_t>(out);
  parallel_for(par, sd.segments, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k)
      lengths[k] = static_cast<std::int32_t>(sd.offsets[k + 1] - sd.offsets[k]);
  });
  return out;
}

}  // namespace cvl::cpu
