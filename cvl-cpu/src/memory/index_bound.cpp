#include "memory/index_bound.hpp"

#include <algorithm>
#include <atomic>

#include "memory/storage.hpp"

namespace cvl::cpu {
namespace {

using I32 = std::int32_t;

// The largest of idx[0, n) read as unsigned (a negative index is huge). SSE2 has no unsigned
// maximum, so the portable loop is scalar: AVX2's where the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
std::uint32_t largest_unsigned(const I32* idx, std::size_t n) {
  std::uint32_t largest = 0;
  for (std::size_t j = 0; j < n; ++j)
    largest = std::max(largest, static_cast<std::uint32_t>(idx[j]));
  return largest;
}

}  // namespace

std::optional<std::uint32_t> check_indices_below(const Parallel& par, const Vector& indices,
                                                 std::size_t length) {
  const I32* idx = elements<I32>(indices);
  if (!idx) return std::nullopt;
  // The largest index: the bound recorded is the tightest, good for every source that long.
  std::atomic<std::uint32_t> largest{0};
  parallel_for(par, indices.length, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
    const std::uint32_t local = largest_unsigned(idx + lo, hi - lo);
    for (std::uint32_t seen = largest.load();
         local > seen && !largest.compare_exchange_weak(seen, local);) {
    }
  });
  if (largest.load() >= length) return std::nullopt;
  const std::uint32_t bound = largest.load() + 1;
  static_cast<Buffer*>(indices.storage.get())->set_indices_below(bound);
  return bound;
}

}  // namespace cvl::cpu
