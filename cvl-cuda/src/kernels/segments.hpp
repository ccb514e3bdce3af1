// Kernel bodies for PACK and RANK: the new descriptor and compaction of PACK, and the sort keys
// and rank scatter of RANK. Launches are sized by bounds where counts are pending (handles.hpp);
// the bodies treat the items past a count as the segment-key convention says.
#pragma once

#include "cvl/scalar_semantics.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

// PACK's outputs in one launch over max(elements, segments + 1) items, given before[i] = flags
// before element i (elements + 1 entries): for k <= sd.segments, the new start offsets (their
// last one, the new total, also into the pending count `total`) and the kept count of each
// segment; for j below the element count, the compaction. Past a pending segment count the
// offsets all equal the real total (handles.hpp), so the new ones do too, and those counts are 0.
template <class Bits>
struct PackOutputs {
  const Bits* values;
  const std::uint8_t* flags;
  const std::uint32_t* before;
  SegmentView sd;
  Extent elements;
  Bits* out;
  std::int32_t* counts;
  std::int64_t* offsets;
  std::int64_t* total;
  CVL_HD void operator()(std::size_t i) const {
    if (i <= sd.segments) {
      const std::int64_t first = before[sd.start(i)];  // widened: the offsets are 64-bit
      offsets[i] = first;
      if (i < sd.segments)
        counts[i] = static_cast<std::int32_t>(before[sd.start(i + 1)] - first);
      else
        *total = first;
    }
    // `before` is data: after a guessed count that was too small it may be anything (the
    // synchronization that finds out drops this work), and no write may leave `out`.
    if (i < elements.items() && flags[i] && before[i] < elements.bound)
      out[before[i]] = values[i];
  }
};

// RANK sort keys: order-preserving unsigned keys, complemented for RANK_DOWN; with several
// segments an INT key carries its segment above it so one sort ranks every segment.
// RANK sort keys: order-preserving unsigned keys, complemented for RANK_DOWN. With several
// segments, or a pending count, an INT key carries its segment key above it (handles.hpp), so one
// sort ranks every segment and puts the elements past the count last.
struct IntRankKeys {
  const std::int32_t* values;
  SegmentKey segment;
  bool segmented, descending;
  std::uint64_t* keys;
  std::uint32_t* elements;
  CVL_HD void operator()(std::size_t j) const {
    std::uint32_t key = cvl_sem::int_rank_key(values[j]);
    if (descending) key = ~key;
    keys[j] = segmented ? (static_cast<std::uint64_t>(segment(j)) << 32) | key : key;
    elements[j] = static_cast<std::uint32_t>(j);
  }
};

struct FloatRankKeys {
  const double* values;
  bool legacy, descending;
  std::uint64_t* keys;
  std::uint32_t* elements;
  CVL_HD void operator()(std::size_t j) const {
    const std::uint64_t key = legacy ? cvl_sem::legacy_float_rank_key(values[j])
                                     : cvl_sem::float_rank_key(values[j]);
    keys[j] = descending ? ~key : key;
    elements[j] = static_cast<std::uint32_t>(j);
  }
};

// After a stable sort of the FLOAT keys, the segment key of each sorted element (second sort key).
struct SegmentOfElement {
  const std::uint32_t* elements;
  SegmentKey segment;
  std::uint32_t* segments;
  CVL_HD void operator()(std::size_t p) const { segments[p] = segment(elements[p]); }
};

// Sorted position p holds element e of segment seg(p): its rank is p - start(seg(p)).
struct ScatterRanks {
  const std::uint32_t* elements;
  SegmentView sd;
  std::int32_t* rank;
  CVL_HD void operator()(std::size_t p) const {
    rank[elements[p]] = static_cast<std::int32_t>(p - sd.start(sd.segment_of(p)));
  }
};

// LENGTH of a pending length: its count as an INT.
struct CopyCount {
  const std::int64_t* count;
  std::int32_t* out;
  CVL_HD void operator()(std::size_t) const { *out = static_cast<std::int32_t>(*count); }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
