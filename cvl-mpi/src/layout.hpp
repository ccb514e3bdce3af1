// Where the elements of a distributed vector live: a vector of n elements is cut into one
// contiguous block per process, in process order, whose sizes differ by at most one. Two vectors
// of equal length are therefore aligned, and elementwise work needs no communication.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cvl::mpi {

// Global positions [begin, end).
struct Range {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

inline Range intersect(Range a, Range b) {
  Range r{std::max(a.begin, b.begin), std::min(a.end, b.end)};
  if (r.end < r.begin) r.end = r.begin;
  return r;
}

// The block of process `rank` of `size` in a vector of n elements.
inline Range block_of(std::size_t n, int rank, int size) {
  const std::size_t q = n / size, extra = n % size, r = static_cast<std::size_t>(rank);
  const std::size_t begin = r * q + std::min(r, extra);
  return {begin, begin + q + (r < extra ? 1 : 0)};
}

// The process whose block holds position i < n.
inline int owner_of(std::size_t i, std::size_t n, int size) {
  const std::size_t q = n / size, extra = n % size, wide = extra * (q + 1);
  if (i < wide) return static_cast<int>(i / (q + 1));
  return static_cast<int>(extra + (i - wide) / q);
}

// owner_of for many positions of one vector: with two processes, one comparison; with a few, a
// count of the block starts at or below the position (no division, no branch); with many,
// owner_of.
class Owners {
 public:
  Owners(std::size_t n, int size) : n_(n), size_(size) {
    if (size > kCompared) return;
    for (int r = 1; r < size; ++r) starts_[r - 1] = block_of(n, r, size).begin;
    for (int r = size; r < kCompared; ++r) starts_[r - 1] = SIZE_MAX;
  }
  int operator()(std::size_t i) const {
    if (size_ == 2) return i >= starts_[0] ? 1 : 0;
    if (size_ > kCompared) return owner_of(i, n_, size_);
    int owner = 0;
    for (int r = 0; r < kCompared - 1; ++r) owner += i >= starts_[r] ? 1 : 0;
    return owner;
  }

 private:
  static constexpr int kCompared = 8;
  std::size_t n_;
  int size_;
  std::size_t starts_[kCompared - 1] = {};
};

}  // namespace cvl::mpi
