// RAND (spec/CVL.md §7): one generator output per element, in index order, always sequential
// because the generator's stream is.
#include <algorithm>
#include <optional>
#include <string>

#include "families.hpp"

namespace cvl::cpu {

namespace {

// One draw per element, each reduced by its bound `bound_at(i)`. C's % on int: the draw is
// non-negative, so the result lies in [0, |bound|). The draws come a chunk at a time
// (RandomStream::fill) into a buffer of their own, since `result` may be the bounds' memory,
// and are reduced through a double quotient: exact for 32-bit operands (see elementwise.cpp's
// divide), and a loop the compiler vectorizes, where an integer division would not be.
template <class BoundAt>
void draw(std::int32_t* result, std::size_t n, BoundAt bound_at, RandomStream& stream) {
  constexpr std::size_t kChunk = 2048;
  std::int32_t draws[kChunk];
  for (std::size_t lo = 0; lo < n; lo += kChunk) {
    const std::size_t m = std::min(n - lo, kChunk);
    stream.fill(draws, m);
    for (std::size_t i = 0; i < m; ++i) {
      const std::int32_t draw = draws[i];
      const std::int32_t bound = bound_at(lo + i);
      const auto quotient = static_cast<std::int32_t>(static_cast<double>(draw) / bound);
      result[lo + i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(draw) -
                                                 static_cast<std::uint32_t>(quotient) *
                                                     static_cast<std::uint32_t>(bound));
    }
  }
}

[[noreturn]] void throw_zero_bound(std::size_t position) {
  throw Error("RAND: bound 0 at position " + std::to_string(position));
}

}  // namespace

Vector random(Vector bounds, RandomStream& stream) {
  const std::size_t n = bounds.length;
  // Checked before drawing, so a failing RAND leaves the stream untouched.
  if (const std::optional<std::uint64_t> same = uniform_bits(bounds)) {  // NESL's rand(c)
    const auto bound = static_cast<std::int32_t>(*same);
    if (bound == 0) throw_zero_bound(0);
    drop_deferred_fills({&bounds, 1});  // the draws overwrite or drop them
    Vector out = reuse_or_allocate(std::move(bounds), Type::Int, n);
    draw(elements<std::int32_t>(out), n, [bound](std::size_t) { return bound; }, stream);
    return out;
  }
  const std::int32_t* bound = elements<std::int32_t>(bounds);
  for (std::size_t i = 0; i < n; ++i)
    if (bound[i] == 0) throw_zero_bound(i);
  Vector out = reuse_or_allocate(std::move(bounds), Type::Int, n);
  draw(elements<std::int32_t>(out), n, [bound](std::size_t i) { return bound[i]; }, stream);
  return out;
}

}  // namespace cvl::cpu
