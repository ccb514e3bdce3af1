// A small deterministic random source (splitmix64): the same seed gives the same program with any
// compiler and standard library (std::uniform_int_distribution does not promise that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fuzz {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  double unit_interval() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }
  // An index chosen with the given weights (not all zero).
  std::size_t weighted(const std::vector<int>& weights) {
    int sum = 0;
    for (int w : weights) sum += w;
    int r = static_cast<int>(between(0, sum - 1));
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    return weights.size() - 1;
  }

 private:
  std::uint64_t state_;
};

}  // namespace fuzz
