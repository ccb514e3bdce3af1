// Segment descriptors: built from a lengths vector (MAKE_SEGDES, PACK), read back by LENGTHS.
#include <string>
#include <vector>

#include "storage.hpp"

namespace cvl::cpu {
namespace {

// Writes offsets[k + 1] = offsets[k] + lengths[k] over [lo, hi) starting from `start`; returns
// the running sum, or records the first negative length in `fault`.
std::int64_t prefix_lengths(const std::int32_t* lengths, std::int64_t* offsets, std::size_t lo,
                            std::size_t hi, std::int64_t start, IndexFault& fault) {
  std::int64_t sum = start;
  for (std::size_t k = lo; k < hi; ++k) {
    if (lengths[k] < 0 && !fault.found()) fault = {k, lengths[k], 0};
    sum += lengths[k];
    offsets[k + 1] = sum;
  }
  return sum;
}

std::int64_t sum_lengths(const std::int32_t* lengths, std::size_t lo, std::size_t hi) {
  std::int64_t sum = 0;
  for (std::size_t k = lo; k < hi; ++k) sum += lengths[k];
  return sum;
}

}  // namespace

SegView view(const Segdes& sd) {
  static const std::int64_t no_offsets[1] = {0};
  auto* storage = static_cast<SegdesStorage*>(sd.storage.get());
  if (!storage) return SegView{0, 0, no_offsets, nullptr, nullptr, 0};
  auto* offsets = reinterpret_cast<const std::int64_t*>(storage->offsets.bytes());
  std::size_t segments = storage->lengths.length;
  return SegView{segments, static_cast<std::size_t>(offsets[segments]), offsets,
                 elements<std::int32_t>(storage->lengths), nullptr, 0};
}

Segdes segdes_from_lengths(const Parallel& par, Vector lengths_vector, const char* op_name) {
  const std::size_t m = lengths_vector.length;
  const std::int32_t* lengths = elements<std::int32_t>(lengths_vector);
  auto storage = std::make_shared<SegdesStorage>(std::move(lengths_vector), m);
  auto* offsets = reinterpret_cast<std::int64_t*>(storage->offsets.bytes());
  offsets[0] = 0;

  IndexFault fault;
  int team = par.team_for(m, kMemoryBoundThreshold);
  if (team <= 1) {
    prefix_lengths(lengths, offsets, 0, m, 0, fault);
  } else {
    // Two passes: block sums, then each block's prefix from the sum of the blocks before it.
    std::vector<std::int64_t> block_start(static_cast<std::size_t>(team) + 1, 0);
#pragma omp parallel num_threads(team)
    {
      int t = omp_get_thread_num(), size = omp_get_num_threads();
      std::size_t lo = block_begin(m, t, size), hi = block_begin(m, t + 1, size);
      block_start[static_cast<std::size_t>(t) + 1] = sum_lengths(lengths, lo, hi);
#pragma omp barrier
#pragma omp single
      for (int i = 0; i < size; ++i)
        block_start[static_cast<std::size_t>(i) + 1] += block_start[static_cast<std::size_t>(i)];
      IndexFault local;
      prefix_lengths(lengths, offsets, lo, hi, block_start[static_cast<std::size_t>(t)], local);
      fault.merge(local);
    }
  }
  if (fault.found())
    throw Error(std::string(op_name) + ": negative segment length " + std::to_string(fault.index) +
                " at position " + std::to_string(fault.position));
  return Segdes{m, static_cast<std::size_t>(offsets[m]), std::move(storage)};
}

}  // namespace cvl::cpu
