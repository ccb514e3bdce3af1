// An INDEX that counts by 1 from a start per segment, read as runs instead of positions: a
// permute by it copies each of the INDEX's segments as one run and never makes the positions.
// The INDEX's segments are those the permute counts (a split's parts, an append's), or finer
// ones inside them: the flattened values of a nested sequence, moved a subsequence at a time
// (bh's nested gets and permutes, whose subsequences hold a few elements each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "families/families.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {

// to[0, n) = from[0, n), the two apart. Runs of a few elements are the common case: two moves
// of one fixed width, overlapping, cover every length from that width to twice it, where a
// call to memcpy would cost more than the copy.
template <class Bits>
inline void copy_run(const Bits* from, std::size_t n, Bits* to) {
  const auto* s = reinterpret_cast<const unsigned char*>(from);
  auto* d = reinterpret_cast<unsigned char*>(to);
  const std::size_t bytes = n * sizeof(Bits);
  auto ends = [&]<std::size_t kWidth>() {
    unsigned char head[kWidth], tail[kWidth];
    std::memcpy(head, s, kWidth);
    std::memcpy(tail, s + bytes - kWidth, kWidth);
    std::memcpy(d, head, kWidth);
    std::memcpy(d + bytes - kWidth, tail, kWidth);
  };
  if (bytes > 32)
    std::memcpy(d, s, bytes);
  else if (bytes >= 16)
    ends.template operator()<16>();
  else if (bytes >= 8)
    ends.template operator()<8>();
  else if (bytes >= 4)
    ends.template operator()<4>();
  else
    for (std::size_t i = 0; i < bytes; ++i) d[i] = s[i];
}

// A run of a gather, where the runs are written in order: kWideRun elements copied whatever its
// length, the excess overwritten by the runs after it, so that the copy has no branch on the
// length. Subsequences are mostly this short.
inline constexpr std::size_t kWideRun = 8;

class IndexRuns {
 public:
  // The runs of the pending `indices` for a permute that counts `counted` (a scatter's source
  // segments, a gather's destination segments) and addresses `addressed` (the other side):
  // either each segment of the INDEX is a segment of `counted`, or `counted` is one segment that
  // the INDEX's segments divide; each counts by 1 from a start that leaves it room in its segment
  // of `addressed`. Nothing otherwise, a bad index among them: the op's own loop then reports it.
  static std::optional<IndexRuns> of(const LazyExpression& indices, const SegmentView& counted,
                                     const SegmentView& addressed);

  // Whether each run is a whole segment of `counted`.
  bool whole_segments() const { return whole_; }
  // How many runs (empty ones included).
  std::size_t count() const { return pieces_.segments; }

  // copy(k, at, to, n) for each run of n > 0 elements, in the order of `counted`: from `at` of
  // the counted side, in its segment k, to `to` of the addressed side (positions in the vectors).
  template <class Copy>
  void for_each(Copy&& copy) const {
    walk([&](std::size_t k, std::size_t at, std::size_t n, std::size_t to) {
      if (n != 0) copy(k, at, to, n);
    });
  }

  // Whether the runs take each of `length` elements, as long as both sides, to where it already
  // is: a permute by them moves nothing, its values are its result (flattened code gathers all
  // the segments a conditional keeps, and scatters back all it split off, when that is every one).
  bool moves_nothing(std::size_t length) const {
    if (counted_.total != length || addressed_.total != length) return false;
    std::size_t moved = 0;
    bool in_place = true;
    walk([&](std::size_t, std::size_t at, std::size_t n, std::size_t to) {
      moved += n;
      in_place = in_place && (n == 0 || at == to);
    });
    return in_place && moved == length;
  }

  // A gather's result: each run of `values` (the addressed side, `length` elements) copied to its
  // place in `out` (the counted side, written in order).
  template <class Bits>
  void gather(const Bits* values, std::size_t length, Bits* out) const {
    const std::size_t total = counted_.total;
    walk([&](std::size_t, std::size_t at, std::size_t n, std::size_t from) {
      if (n <= kWideRun && at + kWideRun <= total && from + kWideRun <= length)
        std::memcpy(out + at, values + from, kWideRun * sizeof(Bits));
      else
        copy_run(values + from, n, out + at);
    });
  }

  // A scatter's result: each run of `values` (the counted side) copied to its place in `out`, in
  // order (of two runs sent to one place the later wins).
  template <class Bits>
  void scatter(const Bits* values, Bits* out) const {
    for_each([&](std::size_t, std::size_t at, std::size_t to, std::size_t n) {
      copy_run(values + at, n, out + to);
    });
  }

 private:
  struct Leaf {
    const std::int32_t* values;
    std::size_t step;  // 0: one constant for all segments
    std::int32_t operator[](std::size_t p) const { return values[p * step]; }
  };

  IndexRuns(Leaf starts, SegmentView pieces, SegmentView counted, SegmentView addressed,
            bool whole)
      : starts_(starts), pieces_(pieces), counted_(counted), addressed_(addressed),
        whole_(whole) {}

  // visit(k, at, n, to) for each segment p of the INDEX: its n elements at `at` of `counted`, in
  // segment k (p, or 0), from `to` of `addressed`. What the loop reads is in locals: a copy's
  // stores may alias anything, so members would be read again after each.
  template <class Visit>
  void walk(Visit&& visit) const {
    const SegOffset* const offsets = pieces_.offsets;
    const SegOffset* const addressed = addressed_.offsets;
    const std::size_t pieces = pieces_.segments;
    const Leaf starts = starts_;
    if (whole_) {
      for (std::size_t p = 0; p < pieces; ++p)
        visit(p, offsets[p], offsets[p + 1] - offsets[p],
              addressed[p] + static_cast<std::uint32_t>(starts[p]));
    } else {
      for (std::size_t p = 0; p < pieces; ++p)
        visit(0, offsets[p], offsets[p + 1] - offsets[p], static_cast<std::uint32_t>(starts[p]));
    }
  }

  Leaf starts_;
  SegmentView pieces_, counted_, addressed_;
  bool whole_;
};

inline std::optional<IndexRuns> IndexRuns::of(const LazyExpression& indices,
                                              const SegmentView& counted,
                                              const SegmentView& addressed) {
  using Kind = vcode::SuperOpNode::Kind;
  const std::vector<vcode::SuperOpNode>& nodes = indices.definition.nodes;
  const vcode::SuperOpNode& root = nodes.back();
  if (root.kind != Kind::Index) return std::nullopt;
  // Starts and strides read as they are: operands, or one constant (an expression of a FUSED
  // superoperator's would have to be computed first).
  for (std::uint8_t a = 0; a < 3; ++a)
    if (nodes[root.args[a]].kind != Kind::Operand &&
        (a == 2 || nodes[root.args[a]].kind != Kind::Constant))
      return std::nullopt;
  auto leaf = [&](const vcode::SuperOpNode& n) -> Leaf {
    if (n.kind == Kind::Constant) return {&n.int_value, 0};
    return {elements<std::int32_t>(indices.operands[n.operand].vector), 1};
  };
  const SegmentView pieces = view(indices.operands[nodes[root.args[2]].operand].segdes);
  if (pieces.total != counted.total || counted.segments != addressed.segments) return std::nullopt;
  const bool whole = pieces.segments == counted.segments &&
                     std::equal(pieces.offsets, pieces.offsets + pieces.segments + 1,
                                counted.offsets);
  if (!whole && counted.segments != 1) return std::nullopt;
  const Leaf strides = leaf(nodes[root.args[1]]);
  const IndexRuns runs(leaf(nodes[root.args[0]]), pieces, counted, addressed, whole);
  // Every run in its segment of `addressed` (no start past the room, no run longer), checked
  // without a branch per run, most being a few elements long: a loop in 32 bits, which the
  // compiler vectorizes.
  const Leaf starts = runs.starts_;
  const SegOffset* const offsets = pieces.offsets;
  const SegOffset* const rooms = addressed.offsets;
  auto any_bad = [&]<bool kWhole>(auto start_of) {
    const auto total = static_cast<std::uint32_t>(addressed.total);
    std::uint32_t bad = 0;
    for (std::size_t p = 0; p < pieces.segments; ++p) {
      const std::uint32_t n = offsets[p + 1] - offsets[p];
      const std::uint32_t room = kWhole ? rooms[p + 1] - rooms[p] : total;
      bad |= (n != 0) & ((n > room) | (start_of(p) > room - n));
    }
    return bad != 0;
  };
  auto bad_for = [&](auto start_of) {
    return whole ? any_bad.template operator()<true>(start_of)
                 : any_bad.template operator()<false>(start_of);
  };
  const std::int32_t* const first = starts.values;
  const bool bad =
      starts.step == 1
          ? bad_for([first](std::size_t p) { return static_cast<std::uint32_t>(first[p]); })
          : bad_for([first](std::size_t) { return static_cast<std::uint32_t>(first[0]); });
  if (bad) return std::nullopt;
  // A stride other than 1 matters only where a segment has several elements.
  if (strides.step == 0 && strides[0] != 1) return std::nullopt;
  if (strides.step != 0)
    for (std::size_t p = 0; p < pieces.segments; ++p)
      if (strides[p] != 1 && pieces.length(p) > 1) return std::nullopt;
  return runs;
}

}  // namespace cvl::cpu
