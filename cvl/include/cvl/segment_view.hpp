// A segment descriptor as loops and kernels read it, the one view every evaluator uses: cvl-cpu's
// loops, cvl-cuda's kernels, and the generated superoperator kernels (this file follows
// scalar_semantics.hpp in their prelude). Self-contained for NVRTC like that header.
#ifndef CVL_SEGMENT_VIEW_HPP
#define CVL_SEGMENT_VIEW_HPP

#ifndef CVL_SCALAR_SEMANTICS_HPP  // in the generated prelude its text comes first
#include "cvl/scalar_semantics.hpp"
#endif

namespace cvl_sem {

typedef decltype(sizeof(0)) usize;  // size_t, without a standard header

// `segments` segments of `total` elements: segment k is [offsets[k], offsets[k + 1]). `Offset`
// is the offsets' element type: cvl-cpu keeps 32-bit offsets and no lengths (a descriptor is 4
// bytes a segment, like the classic's; totals stay below 2^31, but for a wide descriptor's 64-bit
// ones), cvl-cuda 64-bit offsets beside the lengths. `lengths` (null: taken from the offsets), `index` (one entry per element) and
// `uniform` (> 0: every segment has that length) are optional; a view without `index` or
// `uniform` finds an element's segment by searching the offsets.
template <class Offset>
struct BasicSegmentView {
  usize segments = 0;
  usize total = 0;
  const Offset* offsets = nullptr;  // segments + 1 entries, offsets[0] == 0
  const i32* lengths = nullptr;     // segments entries, or null
  const u32* index = nullptr;       // total entries, or null
  i64 uniform = 0;

  // Offsets past `total` are cut to it: on a GPU, `total` may be a guessed bound of a count the
  // device computes (cvl/length.hpp), and no segment may reach past the buffers sized for it.
  CVL_HD usize start(usize k) const {
    const usize at = (usize)offsets[k];
    return at < total ? at : total;
  }
  // From the offsets, not `lengths`: a descriptor whose counts are pending on a GPU has offsets
  // that end at the real total, past which every segment is empty, and lengths past its real
  // segments that mean nothing.
  CVL_HD usize length(usize k) const { return start(k + 1) - start(k); }
  // The segment holding element j < total (the last one starting at or before j).
  CVL_HD usize segment_of(usize j) const {
    if (segments == 1) return 0;
    if (uniform > 0) return j / (usize)uniform;
    if (index) return index[j];
    usize lo = 0, hi = segments;  // offsets[lo] <= j < offsets[hi]
    while (hi - lo > 1) {
      const usize mid = lo + (hi - lo) / 2;
      if ((usize)offsets[mid] <= j)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }
};

typedef BasicSegmentView<i64> SegmentView;

}  // namespace cvl_sem

#endif  // CVL_SEGMENT_VIEW_HPP
