// Segments that cross process borders: what each process tells the others about the pieces at
// its borders (scans, reductions and PACK gather one BorderPart from every process), and which
// processes hold the other parts of a crossing segment, in segment order.
#pragma once

#include <cstdint>
#include <vector>

#include "handles.hpp"

namespace cvl::mpi {

template <class T>
struct BorderPart {
  T value;                // the partial result of the piece at the border this operation needs
  std::uint8_t has_nan;   // that piece holds a NaN (FLOAT MAX/MIN folds: scan_reduce.cpp)
  std::uint8_t nonempty;  // the block holds elements
  std::uint8_t continues;
  std::uint8_t whole;     // the block is one piece of a segment that starts earlier

  static BorderPart of(const DistributedSegdes& d, std::size_t block_size, T value,
                       bool has_nan = false) {
    return {value, has_nan, block_size > 0, d.continues, d.continues && d.pieces() == 1};
  }
};

// The earlier processes that hold the start of the segment this process's first piece continues,
// in segment order (its first process first); call only where `continues`.
template <class T>
std::vector<int> holders_before(const std::vector<BorderPart<T>>& all, int rank) {
  std::vector<int> out;
  for (int q = rank - 1; q >= 0; --q) {
    if (!all[q].nonempty) continue;
    out.insert(out.begin(), q);
    if (!all[q].whole) break;
  }
  return out;
}

// The later processes that hold the rest of this process's last segment, in segment order: none
// when that segment does not cross, or when it is not this process's own (it started earlier).
template <class T>
std::vector<int> holders_after(const std::vector<BorderPart<T>>& all, int rank,
                               const DistributedSegdes& d) {
  std::vector<int> out;
  if (d.pieces() <= d.owned_begin()) return out;
  for (int q = rank + 1; q < static_cast<int>(all.size()); ++q) {
    if (!all[q].nonempty) continue;
    if (!all[q].continues) break;
    out.push_back(q);
    if (!all[q].whole) break;
  }
  return out;
}

}  // namespace cvl::mpi
