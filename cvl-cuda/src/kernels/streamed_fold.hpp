// The kernel bodies of a reduction streamed in chunks (fused.hpp: StreamedFold): every segment's
// running value lives in the result, which starts as the identity; each chunk of the reduced
// values is folded into it. A chunk is cut into pieces, the parts of its segments, and one thread
// folds each piece in order from the running value its segment has so far. Threads take the
// chunk in lanes of kFoldLane elements and own the pieces that start in their lane, so that each
// finds a segment by searching once and walks the offsets from there. Two ways to fold a piece:
// - sequential (FoldChunk): element by element to the piece's end: the sequential fold of
//   spec/CVL.md §8 (FLOAT sums and products left to right from the identity, a NaN resetting
//   FLOAT MAX/MIN), whatever the chunk boundaries;
// - by lanes (LanePartials, then FoldLanes): each lane first folds, from the identity, the part
//   of its first element's segment that lies in the lane; the owner folds its own lane's part
//   element by element, then the later lanes' parts in order (cvl::continue_fold). INT and BOOL
//   folds and FLOAT MAX/MIN are exact; FLOAT sums and products are grouped in lanes, the same way
//   on every run. No thread folds more than a lane's elements and a chunk's lanes.
#pragma once

#include "cvl/nan_fold.hpp"
#include "device.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

inline constexpr std::size_t kFoldLane = 256;

template <class Sem, class T>
struct FillIdentity {
  T* result;
  CVL_HD void operator()(std::size_t k) const { result[k] = Sem::identity(T{}); }
};

// Where lane `lane` of a chunk starts and ends, and the segment holding its first element.
struct Lane {
  std::size_t begin = 0, end = 0, segment = 0;
  bool empty = true;
  CVL_HD Lane(const SegmentView& sd, std::size_t first, std::size_t stop, std::size_t lane) {
    begin = first + lane * kFoldLane;
    if (begin >= stop) return;
    empty = false;
    end = begin + kFoldLane < stop ? begin + kFoldLane : stop;
    segment = sd.segment_of(begin);  // empty segments at `begin` are passed over
  }
};

CVL_HD std::size_t segment_end(const SegmentView& sd, std::size_t k) {
  return sd.start(k) + sd.length(k);
}

// Calls piece(k, from, to, owned) for each piece of segment k in the lane: the first where the
// lane starts the chunk or the segment (else the piece is an earlier lane's: owned false), then
// every segment starting in the lane. `to` is the segment's end, cut at the chunk's.
template <class Piece>
CVL_HD void for_each_piece(const SegmentView& sd, const Lane& lane, std::size_t stop, bool first,
                           Piece piece) {
  std::size_t k = lane.segment, j = lane.begin;
  bool owned = first || j == sd.start(k);
  for (;;) {
    const std::size_t end = segment_end(sd, k);
    piece(k, j, end < stop ? end : stop, owned);
    j = end;
    if (j >= lane.end) return;
    do ++k;
    while (sd.length(k) == 0);  // a non-empty segment starts at j < stop
    owned = true;
  }
}

template <class Sem, class T>
struct FoldChunk {
  const T* chunk;  // element j at chunk[j - first]
  T* result;       // one running value per segment
  SegmentView sd;
  std::size_t first;
  Extent end;  // the chunk ends at end.items() (its bound, or the domain's pending count)

  CVL_HD void operator()(std::size_t lane) const {
    const std::size_t stop = end.items();
    const Lane at(sd, first, stop, lane);
    if (at.empty) return;
    for_each_piece(sd, at, stop, lane == 0,
                   [&](std::size_t k, std::size_t from, std::size_t to, bool owned) {
                     if (!owned) return;
                     T value = result[k];
                     for (std::size_t t = from; t < to; ++t)
                       value = Sem::apply(value, chunk[t - first]);
                     result[k] = value;
                   });
  }
};

// parts[lane] = the fold from the identity of the lane's elements in its first element's
// segment; has_nan[lane] whether one of them is a NaN (FLOAT MAX/MIN: cvl::continue_fold).
template <class Sem, class T>
struct LanePartials {
  const T* chunk;
  T* parts;
  bool* has_nan;
  SegmentView sd;
  std::size_t first;
  Extent end;

  CVL_HD void operator()(std::size_t lane) const {
    const std::size_t stop = end.items();
    const Lane at(sd, first, stop, lane);
    if (at.empty) return;
    const std::size_t to = segment_end(sd, at.segment) < at.end ? segment_end(sd, at.segment)
                                                                 : at.end;
    T value = Sem::identity(T{});
    bool nan = false;
    for (std::size_t t = at.begin; t < to; ++t) {
      const T x = chunk[t - first];
      if constexpr (nan_resets_fold<Sem, T>) nan = nan || x != x;
      value = Sem::apply(value, x);
    }
    parts[lane] = value;
    has_nan[lane] = nan;
  }
};

template <class Sem, class T>
struct FoldLanes {
  const T* chunk;
  const T* parts;
  const bool* has_nan;
  T* result;
  SegmentView sd;
  std::size_t first;
  Extent end;

  CVL_HD void operator()(std::size_t lane) const {
    const std::size_t stop = end.items();
    const Lane at(sd, first, stop, lane);
    if (at.empty) return;
    for_each_piece(sd, at, stop, lane == 0,
                   [&](std::size_t k, std::size_t from, std::size_t to, bool owned) {
                     if (!owned) return;
                     T value = result[k];
                     const std::size_t own = to < at.end ? to : at.end;
                     for (std::size_t t = from; t < own; ++t)
                       value = Sem::apply(value, chunk[t - first]);
                     // The later lanes the piece reaches into: each one's first part is it.
                     for (std::size_t next = lane + 1; first + next * kFoldLane < to; ++next)
                       value = continue_fold<Sem>(value, parts[next], has_nan[next]);
                     result[k] = value;
                   });
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
