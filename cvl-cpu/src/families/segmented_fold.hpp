// The one segmented fold of cvl-cpu, over any source of element values: the unfused reductions
// and scans read a vector (VectorValues), FUSED reads its block evaluator (fused.cpp), so both
// combine every segment in the same order and regroup it the same way under threads. With one
// thread every segment is combined strictly left to right from the identity, as the reference
// does. With more, the elements are cut into equal parts whatever the segment sizes (parallel.hpp's
// Part); a segment cut by a part boundary is finished from per-part partial results. That
// reassociates its combination: still exact for INT and BOOL, and for FLOAT MAX/MIN unless a cut
// segment holds a NaN (the fold then runs sequentially); within rounding for FLOAT + and *.
//
// A reduction may also note whether its first segment held a NaN (first_held_nan): cvl-mpi
// continues a FLOAT MAX or MIN across processes from it (cvl/nan_fold.hpp), in the same pass over
// the values.
//
// A value source provides
//   std::size_t block() const;           the most elements one call of values() may be asked for
//   const T* values(std::size_t lo, std::size_t hi);   p with p[i] the value at element i
// and is asked for increasing, adjacent ranges [lo, hi) of one part.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "threads/parallel.hpp"
#include "families/combine.hpp"

namespace cvl::cpu {

// A vector as a value source: every range at once.
template <class T>
struct VectorValues {
  const T* data;

  static constexpr std::size_t block() { return std::numeric_limits<std::size_t>::max(); }
  const T* values(std::size_t, std::size_t) const { return data; }
};

// Folds x[0, n) into `acc` left to right, and tells whether one of them was a NaN, in the same
// loop: the check is on the bits, beside the fold's chain of dependent steps, so it costs little
// more than the fold. |x| + (2^52 - 1) carries into the sign bit exactly when |x| is above the
// pattern of infinity, that is for a NaN.
template <class C, class T = typename C::value_type>
bool fold_noting_nans(T& acc, const T* x, std::size_t n) {
  static_assert(sizeof(T) == sizeof(std::uint64_t));
  T a = acc;
  std::uint64_t carries = 0;
  for (std::size_t i = 0; i < n; ++i) {
    a = C::apply(a, x[i]);
    carries |=
        (std::bit_cast<std::uint64_t>(x[i]) & 0x7FFF'FFFF'FFFF'FFFFull) + 0x000F'FFFF'FFFF'FFFFull;
  }
  acc = a;
  return (carries >> 63) != 0;
}

// Folds one piece of a segment, fed in runs of consecutive elements. A whole segment folds left
// to right. A piece of a cut segment is reassociated anyway, so FLOAT + and * fold it in four
// lanes, which do not wait on each other: lane j takes the elements at offsets 4m + j from the
// piece's start, the last (length mod 4) go to lane 0, and the lanes combine as (0 1) (2 3).
template <class C>
class PieceFold {
 public:
  using T = typename C::value_type;

  // The piece [lo, hi); `cut` when its segment crosses a part boundary; `note_nans` to tell
  // whether it held a NaN (held_nan) though it is not cut.
  void start(bool cut, std::size_t lo, std::size_t hi, bool note_nans = false) {
    acc_ = C::identity;
    cut_ = cut;
    watch_nans_ = cut || note_nans;
    held_nan_ = false;
    lanes_ = cut && kLanes;
    if (lanes_) {
      std::fill(std::begin(lane_), std::end(lane_), C::identity);
      piece_lo_ = lo;
      lanes_end_ = lo + (hi - lo) / 4 * 4;
    }
  }

  // Elements [pos, pos + n) of the piece, x[i] being the one at pos + i. Returns false when a
  // cut FLOAT MAX/MIN piece holds a NaN: grouping then changes the result (max(s, NaN) = NaN but
  // max(NaN, x) = x), and the caller must fold sequentially.
  bool add(const T* x, std::size_t pos, std::size_t n) {
    if constexpr (kNanSensitive<C>) {
      if (watch_nans_ && !held_nan_) {
        held_nan_ = fold_noting_nans<C>(acc_, x, n);
        return !(held_nan_ && cut_);
      }
    }
    if (lanes_) {
      add_to_lanes(x, pos, n);
    } else {
      T a = acc_;
      for (std::size_t i = 0; i < n; ++i) a = C::apply(a, x[i]);
      acc_ = a;
    }
    return true;
  }

  // Whether the elements added since start held a NaN (watched where cut or noted).
  bool held_nan() const { return held_nan_; }

  T finish() const {
    if (!lanes_) return acc_;
    return C::apply(C::identity,
                    C::apply(C::apply(lane_[0], lane_[1]), C::apply(lane_[2], lane_[3])));
  }

 private:
  static constexpr bool kLanes = kRegroupingRounds<C>;

  void add_to_lanes(const T* x, std::size_t pos, std::size_t n) {
    const std::size_t in_lanes = pos < lanes_end_ ? std::min(n, lanes_end_ - pos) : 0;
    std::size_t i = 0;
    for (; i < in_lanes && ((pos + i - piece_lo_) & 3) != 0; ++i) {  // up to a group of four
      T& l = lane_[(pos + i - piece_lo_) & 3];
      l = C::apply(l, x[i]);
    }
    for (; i + 4 <= in_lanes; i += 4)
      for (std::size_t j = 0; j < 4; ++j) lane_[j] = C::apply(lane_[j], x[i + j]);
    for (; i < in_lanes; ++i) {  // a group the next run finishes
      T& l = lane_[(pos + i - piece_lo_) & 3];
      l = C::apply(l, x[i]);
    }
    for (; i < n; ++i) lane_[0] = C::apply(lane_[0], x[i]);
  }

  T acc_ = C::identity;
  T lane_[4] = {C::identity, C::identity, C::identity, C::identity};
  bool cut_ = false;
  bool watch_nans_ = false;
  bool held_nan_ = false;
  bool lanes_ = false;
  std::size_t piece_lo_ = 0, lanes_end_ = 0;
};

// Folds one part of the elements segment by segment: first its head (the rest of a segment begun
// in an earlier part), then every segment starting in it, the last one clipped at the part's
// end. Calls done(segment, value, is_head, held_nan) for each, in order, empty segments included;
// held_nan tells whether the piece held a NaN for segment 0 where `note_first_nan` (FLOAT MAX and
// MIN), else is false. Fed the part's blocks in order (add), so that several folds can share
// one pass over the values (fused.cpp's fused_folds); fold_part drives it from a value source.
template <class C, class View, class Done>
class PartFold {
 public:
  using T = typename C::value_type;

  PartFold(const View& sd, const Part& p, Done done, bool note_first_nan = false)
      : sd_(sd), p_(p), done_(done), note_first_nan_(note_first_nan), head_(p.has_head()),
        k_(head_ ? p.first - 1 : p.first) {
    std::size_t k = k_;
    bool head = head_;
    begin_segment(k, head);
  }

  // Elements [lo, hi) of the part, the next after those added so far; x[i] is the one at i.
  void add(const T* x, std::size_t lo, std::size_t hi) {
    const View& sd = sd_;
    const Part& p = p_;
    std::size_t k = k_;
    bool head = head_;
    auto piece_end = [&](std::size_t s) { return std::min(sd.start(s + 1), p.end); };
    std::size_t pos = lo;
    while (true) {
      while (k < p.last && piece_end(k) <= pos) finish_segment(k, head);
      if (pos == hi) break;
      // Segments that start here and end inside the block (so are not cut) fold in a tight loop.
      if (!head && pos == sd.start(k) && sd.start(k + 1) <= hi) {
        for (; k < p.last && sd.start(k + 1) <= hi; ++k) {
          T a = C::identity;
          bool held_nan = false, folded = false;
          if constexpr (kNanSensitive<C>) {
            if (note_first_nan_ && k == 0) {
              held_nan = fold_noting_nans<C>(a, x + sd.start(k), sd.start(k + 1) - sd.start(k));
              folded = true;
            }
          }
          if (!folded)
            for (std::size_t i = sd.start(k); i < sd.start(k + 1); ++i) a = C::apply(a, x[i]);
          done_(k, a, false, held_nan);
        }
        begin_segment(k, head);
        pos = std::min(sd.start(k), hi);
        continue;
      }
      const std::size_t end = std::min(piece_end(k), hi);
      exact_ &= piece_.add(x + pos, pos, end - pos);
      pos = end;
    }
    k_ = k;
    head_ = head;
  }

  // Finishes the part's last segments. Returns false when the result needs the sequential fold
  // (PieceFold::add).
  bool finish() {
    std::size_t k = k_;
    bool head = head_;
    while (k < p_.last) finish_segment(k, head);
    k_ = k;
    head_ = head;
    return exact_;
  }

 private:
  void begin_segment(std::size_t k, bool head) {
    if (k < p_.last)
      piece_.start(head || sd_.start(k + 1) > p_.end, head ? p_.begin : sd_.start(k),
                   std::min(sd_.start(k + 1), p_.end), note_first_nan_ && k == 0);
  }
  void finish_segment(std::size_t& k, bool& head) {
    done_(k, piece_.finish(), head, piece_.held_nan());
    head = false;
    ++k;
    begin_segment(k, head);
  }

  const View& sd_;
  const Part& p_;
  Done done_;
  bool note_first_nan_;
  bool head_;
  std::size_t k_;
  PieceFold<C> piece_;
  bool exact_ = true;
};

// PartFold over a value source's blocks. Returns false when the result needs the sequential
// fold.
template <class C, class Source, class View, class Done>
bool fold_part(Source& source, const View& sd, const Part& p, Done&& done,
               bool note_first_nan = false) {
  PartFold<C, View, Done&> fold(sd, p, done, note_first_nan);
  for (std::size_t lo = p.begin; lo < p.end;) {
    const std::size_t hi = lo + std::min<std::size_t>(source.block(), p.end - lo);
    fold.add(source.values(lo, hi), lo, hi);
    lo = hi;
  }
  return fold.finish();
}

// result[k] = the fold of segment k, for every segment of `sd`, and where `first_held_nan` is
// given, *first_held_nan = whether segment 0 held a NaN (noted for FLOAT MAX and MIN only, else
// left as it is; the other segments are not looked at, which would cost a pass).
// `with_values(body)` calls body(source) with a value source for one block (once per block, on
// the thread running it), so a source may keep per-block state (FUSED's evaluation buffers and
// faults).
template <class C, class View, class WithValues>
void reduce_segments(const Parallel& par, const View& sd, typename C::value_type* result,
                     WithValues&& with_values, bool* first_held_nan = nullptr,
                     bool sequential = false) {
  using T = typename C::value_type;
  const int team = sequential              ? 1
                   : kRegroupingRounds<C> ? par.fixed_team_for(sd.total, kMemoryBoundThreshold)
                                          : par.team_for(sd.total, kMemoryBoundThreshold);
  if (team <= 1) {
    with_values([&](auto& source) {
      fold_part<C>(
          source, sd, whole_part(sd),
          [&](std::size_t k, T value, bool, bool nan) {
            result[k] = value;
            if (k == 0 && first_held_nan) *first_held_nan = nan;
          },
          first_held_nan != nullptr);
    });
    return;
  }
  // Each part reduces the segments starting in it; the heads (continuations of a segment begun
  // in an earlier part) are combined afterwards in part order.
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  const std::size_t blocks = blocks_for_team(team);
  std::vector<T> head(blocks);
  std::vector<std::size_t> head_segment(blocks, none);
  std::vector<std::uint8_t> head_nan(blocks);  // where the head is segment 0's
  std::atomic<bool> inexact{false};
  run_blocks(team, blocks, [&](std::size_t b) {
    const Part p = make_part(sd, b, blocks);
    with_values([&](auto& source) {
      const bool exact = fold_part<C>(
          source, sd, p,
          [&](std::size_t k, T value, bool is_head, bool nan) {
            if (!is_head) {
              result[k] = value;
              if (k == 0 && first_held_nan) *first_held_nan = nan;
              return;
            }
            head[b] = value;
            head_segment[b] = k;
            head_nan[b] = nan;
          },
          first_held_nan != nullptr);
      if (!exact) inexact.store(true, std::memory_order_relaxed);
    });
  });
  if (inexact.load()) return reduce_segments<C>(par, sd, result, with_values, first_held_nan, true);
  for (std::size_t b = 1; b < blocks; ++b)
    if (head_segment[b] != none) {
      result[head_segment[b]] = C::apply(result[head_segment[b]], head[b]);
      if (head_segment[b] == 0 && first_held_nan) *first_held_nan = *first_held_nan || head_nan[b];
    }
}

// The fold of in[lo, hi) as a piece of a cut segment (a threaded scan's carry into the next
// part); `inexact` is set when PieceFold::add says the parted result may differ.
template <class C, class T = typename C::value_type>
T fold_cut_piece(const T* in, std::size_t lo, std::size_t hi, std::atomic<bool>& inexact) {
  PieceFold<C> piece;
  piece.start(true, lo, hi);
  if (!piece.add(in + lo, lo, hi - lo)) inexact.store(true, std::memory_order_relaxed);
  return piece.finish();
}

// Exclusive scan of [lo, hi) from `acc`, returning the running value after hi. Reads in[i]
// before writing out[i], so in may be out.
template <class C, class T = typename C::value_type>
T scan_range(const T* in, T* out, std::size_t lo, std::size_t hi, T acc) {
  for (std::size_t i = lo; i < hi; ++i) {
    T x = in[i];
    out[i] = acc;
    acc = C::apply(acc, x);
  }
  return acc;
}

// Exclusive scan of every segment on one thread: out[i] = the fold of the segment's elements
// before i, from the identity. Fed the elements' blocks in order (add), so that a pass that
// folds the same values can scan them too (fused.cpp's fused_folds); scan_sequential drives it
// from a value source. Each block is taken in three parts: the rest of a segment begun in an
// earlier block, the segments inside the block (a tight loop, all of them for a vector), and the
// start of a segment that goes on in the next block.
template <class C, class View>
class SequentialScan {
 public:
  using T = typename C::value_type;

  SequentialScan(const View& sd, T* out) : sd_(sd), out_(out) {}

  // Elements [lo, hi), the next after those added so far; x[i] is the one at i.
  void add(const T* x, std::size_t lo, std::size_t hi) {
    const View& sd = sd_;
    T* out = out_;
    std::size_t k = k_;
    while (k < sd.segments && sd.start(k + 1) <= lo) ++k;
    if (sd.start(k) < lo) {  // a segment carried over from the previous block
      const std::size_t end = std::min<std::size_t>(sd.start(k + 1), hi);
      acc_ = scan_range<C>(x, out, lo, end, acc_);
      if (sd.start(k + 1) > hi) {  // and on into the next block
        k_ = k;
        return;
      }
      ++k;
    }
    for (; k < sd.segments && sd.start(k + 1) <= hi; ++k)
      scan_range<C>(x, out, sd.start(k), sd.start(k + 1), C::identity);
    if (k < sd.segments && sd.start(k) < hi)
      acc_ = scan_range<C>(x, out, sd.start(k), hi, C::identity);
    k_ = k;
  }

 private:
  const View& sd_;
  T* out_;
  std::size_t k_ = 0;    // the first segment that does not end at or before the next block
  T acc_ = C::identity;  // segment k_'s running value, when it began before the next block
};

template <class C, class Source, class View>
void scan_sequential(Source& source, typename C::value_type* out, const View& sd) {
  SequentialScan<C, View> scan(sd, out);
  for (std::size_t lo = 0; lo < sd.total;) {
    const std::size_t hi = lo + std::min<std::size_t>(source.block(), sd.total - lo);
    scan.add(source.values(lo, hi), lo, hi);
    lo = hi;
  }
}

}  // namespace cvl::cpu
