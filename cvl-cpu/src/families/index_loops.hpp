// The inner loops of gathers and scatters whose indices are known good, and the check that makes
// them so. Checking a chunk of indices in a loop of its own (no branch per element, vectorized)
// and then moving its elements without a test costs about half the instructions of one loop
// that tests each index as it moves its element; the moves are unrolled by four, so that each
// element costs its two loads and a store.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cvl::cpu {

// Indices checked and moved this many at a time: a chunk stays in the L1 cache between the two.
inline constexpr std::size_t kIndexChunk = 256;

// Whether every index in idx[0, n), read as unsigned (a negative one is huge), is below `length`.
inline bool all_below(const std::int32_t* idx, std::size_t n, std::uint32_t length) {
  std::uint32_t bad = 0;
  for (std::size_t j = 0; j < n; ++j) bad |= static_cast<std::uint32_t>(idx[j]) >= length ? 1u : 0u;
  return bad == 0;
}

// out[j] = values[idx[j]] for j < n, every index good. `out` may be idx's memory: each group's
// indices are read before its elements are written.
template <class Bits>
void gather_unchecked(const Bits* values, const std::int32_t* idx, Bits* out, std::size_t n) {
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const auto a = static_cast<std::uint32_t>(idx[j]), b = static_cast<std::uint32_t>(idx[j + 1]),
               c = static_cast<std::uint32_t>(idx[j + 2]), d = static_cast<std::uint32_t>(idx[j + 3]);
    const Bits va = values[a], vb = values[b], vc = values[c], vd = values[d];
    out[j] = va;
    out[j + 1] = vb;
    out[j + 2] = vc;
    out[j + 3] = vd;
  }
  for (; j < n; ++j) out[j] = values[static_cast<std::uint32_t>(idx[j])];
}

// out[idx[j]] = values[j] for j < n in order (of two elements sent to one place the later
// stays), every index good.
template <class Bits>
void scatter_unchecked(const Bits* values, const std::int32_t* idx, Bits* out, std::size_t n) {
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    out[static_cast<std::uint32_t>(idx[j])] = values[j];
    out[static_cast<std::uint32_t>(idx[j + 1])] = values[j + 1];
    out[static_cast<std::uint32_t>(idx[j + 2])] = values[j + 2];
    out[static_cast<std::uint32_t>(idx[j + 3])] = values[j + 3];
  }
  for (; j < n; ++j) out[static_cast<std::uint32_t>(idx[j])] = values[j];
}

}  // namespace cvl::cpu
