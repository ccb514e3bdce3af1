// Kernel bodies for segment descriptors, PACK and RANK: the negative-length check, the new
// descriptor and compaction of PACK, and the sort keys and rank scatter of RANK.
#pragma once

#include "cvl/scalar_semantics.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

struct CheckLengths {  // over segments
  const std::int32_t* lengths;
  unsigned long long* fault;
  CVL_HOST_DEVICE void operator()(std::size_t k) const {
    if (lengths[k] < 0) record_fault(fault, k);
  }
};

// PACK, given before[i] = flags before element i (total + 1 entries): the kept count of each
// segment and the new start offsets (segments + 1 entries).
struct PackedSegments {  // over segments + 1
  const std::int64_t* before;
  SegMap sd;
  std::int32_t* counts;
  std::int64_t* offsets;
  CVL_HOST_DEVICE void operator()(std::size_t k) const {
    const std::int64_t first = before[sd.start(k)];
    offsets[k] = first;
    if (k < sd.segments) counts[k] = static_cast<std::int32_t>(before[sd.start(k + 1)] - first);
  }
};

template <class Bits>
struct Compact {  // over elements
  const Bits* values;
  const std::uint8_t* flags;
  const std::int64_t* before;
  Bits* out;
  CVL_HOST_DEVICE void operator()(std::size_t j) const {
    if (flags[j]) out[before[j]] = values[j];
  }
};

// RANK sort keys: order-preserving unsigned keys, complemented for RANK_DOWN; with several
// segments an INT key carries its segment above it so one sort ranks every segment.
struct IntRankKeys {
  const std::int32_t* values;
  SegMap sd;
  bool segmented, descending;
  std::uint64_t* keys;
  std::uint32_t* elements;
  CVL_HOST_DEVICE void operator()(std::size_t j) const {
    std::uint32_t key = cvl_sem::int_rank_key(values[j]);
    if (descending) key = ~key;
    keys[j] = segmented ? (static_cast<std::uint64_t>(sd.segment_of(j)) << 32) | key : key;
    elements[j] = static_cast<std::uint32_t>(j);
  }
};

struct FloatRankKeys {
  const double* values;
  bool legacy, descending;
  std::uint64_t* keys;
  std::uint32_t* elements;
  CVL_HOST_DEVICE void operator()(std::size_t j) const {
    const std::uint64_t key = legacy ? cvl_sem::legacy_float_rank_key(values[j])
                                     : cvl_sem::float_rank_key(values[j]);
    keys[j] = descending ? ~key : key;
    elements[j] = static_cast<std::uint32_t>(j);
  }
};

// After a stable sort of the FLOAT keys, the segment of each sorted element (second sort key).
struct SegmentOfElement {
  const std::uint32_t* elements;
  SegMap sd;
  std::uint32_t* segments;
  CVL_HOST_DEVICE void operator()(std::size_t p) const {
    segments[p] = static_cast<std::uint32_t>(sd.segment_of(elements[p]));
  }
};

// Sorted position p holds element e of segment seg(p): its rank is p - start(seg(p)).
struct ScatterRanks {
  const std::uint32_t* elements;
  SegMap sd;
  std::int32_t* rank;
  CVL_HOST_DEVICE void operator()(std::size_t p) const {
    rank[elements[p]] = static_cast<std::int32_t>(p - sd.start(sd.segment_of(p)));
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
