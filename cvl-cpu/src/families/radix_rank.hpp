// Stable ranking of unsigned integer keys: for the items of one segment, rank[item.element] =
// the item's position in a stable ascending sort. Kernels by size: all-pairs counting, a
// comparison sort, and an LSD radix sort that skips digits all keys share, sequential or with a
// team of threads for one large segment. Items carry their element number (the global index
// into the rank vector), so every pass moves one record.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "threads/parallel.hpp"

namespace cvl::cpu::radix {

template <class Key>
struct Item {
  Key key;
  std::uint32_t element;
};

inline constexpr std::size_t kTinyMax = 16;   // all-pairs counting up to this length
inline constexpr std::size_t kSortMax = 256;  // comparison sort on the stack up to this length

// Digit geometry for keys of type Key split into kBits-bit digits (rank.cpp picks the width).
template <class Key, int kBits>
struct Digits {
  static constexpr int kPasses = (static_cast<int>(sizeof(Key)) * 8 + kBits - 1) / kBits;
  static constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  using Counts = std::array<std::array<std::uint32_t, kBuckets>, kPasses>;

  static std::size_t digit(Key key, int pass) {
    return static_cast<std::size_t>(key >> (pass * kBits)) & (kBuckets - 1);
  }
  static void count(const Item<Key>* items, std::size_t lo, std::size_t hi, Counts& counts) {
    for (auto& c : counts) c.fill(0);
    for (std::size_t i = lo; i < hi; ++i)
      for (int pass = 0; pass < kPasses; ++pass) ++counts[pass][digit(items[i].key, pass)];
  }
  // The passes that reorder anything: a digit on which all keys agree is skipped.
  struct Passes {
    std::array<int, kPasses> pass{};
    std::size_t count = 0;
    bool empty() const { return count == 0; }
    std::size_t size() const { return count; }
    int operator[](std::size_t a) const { return pass[a]; }
  };
  static Passes active(const Counts& counts, Key any_key, std::size_t length) {
    Passes passes;
    for (int p = 0; p < kPasses; ++p)
      if (counts[p][digit(any_key, p)] != length) passes.pass[passes.count++] = p;
    return passes;
  }
};

// rank[element j] = #{i < j : key[i] <= key[j]} + #{i > j : key[i] < key[j]}.
template <class Key>
void rank_tiny(const Item<Key>* items, std::size_t length, std::int32_t* rank) {
  for (std::size_t j = 0; j < length; ++j) {
    const Key key = items[j].key;
    std::int32_t before = 0;
    for (std::size_t i = 0; i < j; ++i) before += items[i].key <= key;
    for (std::size_t i = j + 1; i < length; ++i) before += items[i].key < key;
    rank[items[j].element] = before;
  }
}

// Element numbers increase within a segment, so sorting by (key, element) is a stable sort by
// key even though std::sort is not stable.
template <class Key>
void rank_by_sort(const Item<Key>* items, std::size_t length, std::int32_t* rank) {
  std::array<Item<Key>, kSortMax> sorted;
  std::copy(items, items + length, sorted.begin());
  std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(length),
            [](const Item<Key>& a, const Item<Key>& b) {
              return a.key < b.key || (a.key == b.key && a.element < b.element);
            });
  for (std::size_t p = 0; p < length; ++p) rank[sorted[p].element] = static_cast<std::int32_t>(p);
}

// One counting-sort pass over items [lo, hi) with destinations from `next`; the last pass
// writes ranks (positions relative to the segment) instead of moving items.
template <class Key, int kBits>
void scatter_pass(int pass, const Item<Key>* from, Item<Key>* to, std::int32_t* rank, bool last,
                  std::size_t lo, std::size_t hi, std::uint32_t* next) {
  using D = Digits<Key, kBits>;
  if (last) {
    for (std::size_t i = lo; i < hi; ++i)
      rank[from[i].element] = static_cast<std::int32_t>(next[D::digit(from[i].key, pass)]++);
  } else {
    for (std::size_t i = lo; i < hi; ++i) to[next[D::digit(from[i].key, pass)]++] = from[i];
  }
}

// Sequential LSD radix rank of one segment; `items` and `spare` alternate between passes.
template <class Key, int kBits>
void rank_radix(Item<Key>* items, Item<Key>* spare, std::size_t length, std::int32_t* rank) {
  using D = Digits<Key, kBits>;
  typename D::Counts counts;
  D::count(items, 0, length, counts);
  const typename D::Passes passes = D::active(counts, items[0].key, length);
  if (passes.empty()) {  // all keys equal: element order
    for (std::size_t i = 0; i < length; ++i) rank[items[i].element] = static_cast<std::int32_t>(i);
    return;
  }
  Item<Key>* from = items;
  Item<Key>* to = spare;
  for (std::size_t a = 0; a < passes.size(); ++a) {
    const auto& count = counts[static_cast<std::size_t>(passes[a])];
    std::array<std::uint32_t, D::kBuckets> next;
    std::uint32_t sum = 0;
    for (std::size_t v = 0; v < D::kBuckets; ++v) {
      next[v] = sum;
      sum += count[v];
    }
    scatter_pass<Key, kBits>(passes[a], from, to, rank, a + 1 == passes.size(), 0, length,
                             next.data());
    std::swap(from, to);
  }
}

// The same with a team of threads: in each pass every block of the current order is counted,
// destinations are laid out digit-major then block-major (which keeps the sort stable), and every
// block is scattered; the blocks are tasks of the team.
template <class Key, int kBits>
void rank_radix_parallel(int team, Item<Key>* items, Item<Key>* spare, std::size_t length,
                         std::int32_t* rank) {
  using D = Digits<Key, kBits>;
  const std::size_t blocks = blocks_for_team(team);
  auto lo = [&](std::size_t b) { return block_begin(length, b, blocks); };
  std::vector<typename D::Counts> counts(blocks);
  std::vector<std::array<std::uint32_t, D::kBuckets>> next(blocks);
  run_blocks(team, blocks, [&](std::size_t b) { D::count(items, lo(b), lo(b + 1), counts[b]); });
  typename D::Counts total = counts[0];
  for (std::size_t b = 1; b < blocks; ++b)
    for (std::size_t pass = 0; pass < static_cast<std::size_t>(D::kPasses); ++pass)
      for (std::size_t v = 0; v < D::kBuckets; ++v) total[pass][v] += counts[b][pass][v];
  const typename D::Passes passes = D::active(total, items[0].key, length);
  if (passes.empty()) {  // all keys equal: element order
    run_blocks(team, blocks, [&](std::size_t b) {
      for (std::size_t i = lo(b); i < lo(b + 1); ++i)
        rank[items[i].element] = static_cast<std::int32_t>(i);
    });
    return;
  }
  Item<Key>* from = items;
  Item<Key>* to = spare;
  for (std::size_t a = 0; a < passes.size(); ++a) {
    const auto pass = static_cast<std::size_t>(passes[a]);
    if (a > 0)  // the first pass uses the counts of the initial order
      run_blocks(team, blocks, [&](std::size_t b) {
        auto& mine = counts[b][pass];
        mine.fill(0);
        for (std::size_t i = lo(b); i < lo(b + 1); ++i) ++mine[D::digit(from[i].key, passes[a])];
      });
    std::uint32_t sum = 0;
    for (std::size_t v = 0; v < D::kBuckets; ++v)
      for (std::size_t b = 0; b < blocks; ++b) {
        next[b][v] = sum;
        sum += counts[b][pass][v];
      }
    run_blocks(team, blocks, [&](std::size_t b) {
      scatter_pass<Key, kBits>(passes[a], from, to, rank, a + 1 == passes.size(), lo(b),
                               lo(b + 1), next[b].data());
    });
    std::swap(from, to);
  }
}

}  // namespace cvl::cpu::radix
