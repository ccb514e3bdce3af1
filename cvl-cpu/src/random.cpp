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
  // C's % on int: the draw is non-negative, so the result lies in [0, |bound|) and never traps.
  for (std::size_t i = 0; i < n; ++i) result[i] = stream.next() % bound[i];
  return out;
}

}  // namespace cvl::cpu
