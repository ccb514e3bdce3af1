// An operand that a kernel reads at each element it walks: stored in a buffer, or a pending INDEX
// or DIST (pending_expression.hpp) made in place from its per-segment vectors, so that no launch
// of its own stores it first. Each element is the one kernels::Index or kernels::Distribute
// would store: the same scalar function of the same segment.
#pragma once

#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

struct ElementOperand {
  const void* data = nullptr;             // the stored elements; null: made in place
  const void* per_segment = nullptr;      // a DIST's values, an INDEX's starts
  const std::int32_t* strides = nullptr;  // an INDEX's; null: a DIST
  SegmentView sd{};                       // the generator's descriptor

  bool stored() const { return data != nullptr; }

  // Element j, as `Bits` (an INDEX's elements are INT: 4 bytes).
  template <class Bits>
  CVL_HD Bits at(std::size_t j) const {
    if (data) return static_cast<const Bits*>(data)[j];
    const std::size_t k = sd.segment_of(j);
    if (!strides) return static_cast<const Bits*>(per_segment)[k];
    if constexpr (sizeof(Bits) == sizeof(std::int32_t)) {
      const std::int32_t value =
          cvl_sem::index_value(static_cast<const std::int32_t*>(per_segment)[k], strides[k],
                               static_cast<std::uint32_t>(j - sd.start(k)));
      return static_cast<Bits>(static_cast<std::uint32_t>(value));
    } else {
      return Bits{};  // never asked: only an INT operand is an INDEX
    }
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
