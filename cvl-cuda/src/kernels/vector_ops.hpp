// Kernel bodies of the one-value-per-segment ops: EXTRACT, REPLACE, DIST, INDEX. DIST and INDEX
// visit every element of their descriptor: where it has no per-element index yet, they write it
// as they find each element's segment (`record_index`, null: not asked), so no launch of its own
// ever builds it.
#pragma once

#include "cvl/scalar_semantics.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

template <class Bits>
struct Extract {  // over segments
  const Bits* values;
  const std::int32_t* indices;
  SegmentView sd;
  Bits* out;
  unsigned long long* fault;
  CVL_HD void operator()(std::size_t k) const {
    const auto at = static_cast<std::uint32_t>(indices[k]);
    if (at >= sd.length(k)) {
      record_fault(fault, k);
      return;
    }
    out[k] = values[sd.start(k) + at];  // out may be the indices' memory: read first
  }
};

template <class Bits>
struct Replace {  // over segments; `out` holds a copy of the vector
  const std::int32_t* indices;
  const Bits* replacement;
  SegmentView sd;
  Bits* out;
  unsigned long long* fault;
  CVL_HD void operator()(std::size_t k) const {
    const auto at = static_cast<std::uint32_t>(indices[k]);
    if (at >= sd.length(k)) {
      record_fault(fault, k);
      return;
    }
    out[sd.start(k) + at] = replacement[k];
  }
};

template <class Bits>
struct Distribute {  // over elements
  const Bits* values;
  SegmentView sd;
  Bits* out;
  std::uint32_t* record_index = nullptr;
  CVL_HD void operator()(std::size_t j) const {
    const std::size_t k = sd.segment_of(j);
    if (record_index) record_index[j] = static_cast<std::uint32_t>(k);
    out[j] = values[k];
  }
};

struct Index {  // over elements
  const std::int32_t* starts;
  const std::int32_t* strides;
  SegmentView sd;
  std::int32_t* out;
  std::uint32_t* record_index = nullptr;
  CVL_HD void operator()(std::size_t j) const {
    const std::size_t k = sd.segment_of(j);
    if (record_index) record_index[j] = static_cast<std::uint32_t>(k);
    out[j] = cvl_sem::index_value(starts[k], strides[k], static_cast<std::uint32_t>(j - sd.start(k)));
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
