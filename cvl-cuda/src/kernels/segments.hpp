// Kernel bodies for segment descriptors, PACK and RANK: the negative-length check, the new
// descriptor and compaction of PACK, and the sort keys and rank scatter of RANK.
#pragma once

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
    std::uint32_t key = static_cast<std::uint32_t>(values[j]) ^ 0x80000000u;
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
    const std::uint64_t bits = double_bits(values[j]);
    std::uint64_t key;
    if (legacy) {  // spec/CVL.md §6.3, as cvl-cpu's legacy_float_key
      auto high = static_cast<std::uint32_t>(bits >> 32), low = static_cast<std::uint32_t>(bits);
      bool s = (low >> 31) != 0;
      std::uint32_t k1 = s ? ~high : high;
      std::uint32_t k2 = s ? ~low : low ^ 0x80000000u;
      key = (static_cast<std::uint64_t>(k2) << 32) | k1;
    } else {  // IEEE total order
      key = (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
    }
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
