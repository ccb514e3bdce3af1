// RAND (spec/CVL.md §7): one generator output per element, in index order, always sequential
// because the generator's stream is.
#include <string>

#include "families.hpp"

namespace cvl::cpu {

Vector random(Vector bounds, RandomStream& stream) {
  const std::size_t n = bounds.length;
  const std::int32_t* bound = elements<std::int32_t>(bounds);
  // Checked before drawing, so a failing RAND leaves the stream untouched.
  for (std::size_t i = 0; i < n; ++i)
    if (bound[i] == 0) throw Error("RAND: bound 0 at position " + std::to_string(i));
  Vector out = reuse_or_allocate(std::move(bounds), Type::Int, n);
  std::int32_t* result = elements<std::int32_t>(out);
  // C's % on int: the draw is non-negative, so the result lies in [0, |bound|). It is computed
  // through a double quotient, exact for 32-bit operands (see elementwise.cpp's divide) and
  // several times faster than an integer division in this loop, which the generator keeps
  // sequential.
  // A local copy of the generator: stores through `result` could alias the caller's object, which
  // would force its indices through memory on every draw.
  RandomStream local = stream;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t draw = local.next();
    const auto quotient = static_cast<std::int32_t>(static_cast<double>(draw) / bound[i]);
    result[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(draw) -
                                          static_cast<std::uint32_t>(quotient) *
                                              static_cast<std::uint32_t>(bound[i]));
  }
  stream = local;
  return out;
}

}  // namespace cvl::cpu
