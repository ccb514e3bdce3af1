// The kernel bodies of a reduction streamed in chunks (fused.hpp: StreamedFold): every segment's
// running value lives in the result, which starts as the identity; each chunk of the reduced
// values is folded into it. A chunk is cut into pieces, the parts of its segments, and one thread
// folds each piece in order from the running value its segment has so far: the sequential fold
// of spec/CVL.md §8 (FLOAT sums and products left to right from the identity, a NaN resetting
// FLOAT MAX/MIN), whatever the chunk boundaries. Threads take the chunk in lanes of kFoldLane
// elements and fold the pieces that start in their lane (to the piece's end), so that each finds
// a segment by searching once and walks the offsets from there.
#pragma once

#include "device.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

template <class Sem, class T>
struct FillIdentity {
  T* result;
  CVL_HD void operator()(std::size_t k) const { result[k] = Sem::identity(T{}); }
};

inline constexpr std::size_t kFoldLane = 256;

template <class Sem, class T>
struct FoldChunk {
  const T* chunk;  // element j at chunk[j - first]
  T* result;       // one running value per segment
  SegmentView sd;
  std::size_t first;
  Extent end;  // the chunk ends at end.items() (its bound, or the domain's pending count)

  CVL_HD void operator()(std::size_t lane) const {
    const std::size_t stop = end.items();
    std::size_t j = first + lane * kFoldLane;
    if (j >= stop) return;
    const std::size_t lane_end = j + kFoldLane < stop ? j + kFoldLane : stop;
    // The segment holding j (empty segments at j are passed over); its piece is this lane's
    // where the lane starts the chunk or the segment.
    std::size_t k = sd.segment_of(j);
    bool owned = lane == 0 || j == sd.start(k);
    for (;;) {
      const std::size_t segment_end = sd.start(k) + sd.length(k);
      if (owned) {
        const std::size_t piece_end = segment_end < stop ? segment_end : stop;
        T value = result[k];
        for (std::size_t t = j; t < piece_end; ++t) value = Sem::apply(value, chunk[t - first]);
        result[k] = value;
      }
      j = segment_end;
      if (j >= lane_end) return;
      do ++k;
      while (sd.length(k) == 0);  // a non-empty segment starts at j < stop
      owned = true;
    }
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
