// A set of disjoint byte ranges (offsets into one address range), stored as start -> length
// with touching neighbours merged: the buffer arena's free ranges and its untouched pages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>

namespace cvl::cpu {

class AddressRanges {
 public:
  void add(std::size_t from, std::size_t length) {
    if (length == 0) return;
    bytes_ += length;
    auto next = ranges_.lower_bound(from);
    if (next != ranges_.begin()) {
      auto before = std::prev(next);
      if (before->first + before->second == from) {
        from = before->first;
        length += before->second;
        ranges_.erase(before);
      }
    }
    if (next != ranges_.end() && from + length == next->first) {
      length += next->second;
      ranges_.erase(next);
    }
    ranges_.emplace(from, length);
  }

  // Removes what lies in [from, from + length); returns the lowest offset removed (SIZE_MAX: none).
  std::size_t remove(std::size_t from, std::size_t length) {
    const std::size_t to = from + length;
    std::size_t lowest = SIZE_MAX;
    if (length == 0) return lowest;
    auto it = ranges_.upper_bound(from);
    if (it != ranges_.begin()) --it;
    while (it != ranges_.end() && it->first < to) {
      const std::size_t start = it->first, end = it->first + it->second;
      if (end <= from) {
        ++it;
        continue;
      }
      lowest = std::min(lowest, std::max(start, from));
      it = ranges_.erase(it);
      bytes_ -= end - start;
      if (start < from) add(start, from - start);
      if (end > to) add(to, end - to);
    }
    return lowest;
  }

  // The bytes of [from, from + length) that are in these ranges.
  std::size_t overlap(std::size_t from, std::size_t length) const {
    std::size_t bytes = 0;
    auto it = ranges_.upper_bound(from);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < from + length; ++it) {
      const std::size_t start = std::max(it->first, from);
      const std::size_t end = std::min(it->first + it->second, from + length);
      if (end > start) bytes += end - start;
    }
    return bytes;
  }

  const std::map<std::size_t, std::size_t>& all() const { return ranges_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::map<std::size_t, std::size_t> ranges_;
  std::size_t bytes_ = 0;
};

}  // namespace cvl::cpu
