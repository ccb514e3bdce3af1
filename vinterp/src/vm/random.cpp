// Seeding of the glibc-compatible generator (spec/CVL.md §7.2).
#include "cvl/random.hpp"

namespace cvl {

void RandomStream::seed(std::uint32_t seed_value) {
  state_[0] = static_cast<std::int32_t>(seed_value == 0 ? 1 : seed_value);
  for (int i = 1; i < kDegree; ++i) {
    // 16807 * r[i-1] mod (2^31 - 1), without overflow (Schrage's method, as glibc does it).
    std::int32_t word = state_[i - 1];
    std::int32_t high = word / 127773;
    std::int32_t low = word % 127773;
    std::int32_t next = 16807 * low - 2836 * high;
    if (next < 0) next += 2147483647;
    state_[i] = next;
  }
  front_ = 3;
  rear_ = 0;
  for (int i = 0; i < 10 * kDegree; ++i) next();
}

}  // namespace cvl
