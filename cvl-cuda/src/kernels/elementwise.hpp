// The elementwise kernel bodies: one per op and element type (instantiated through
// cvl/op_dispatch.hpp), applying the op's cvl_sem rule to typed loads the compiler can vectorize.
#pragma once

#include "kernels/scalar_apply.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

struct TypedInput {
  const void* data = nullptr;
  Type type = Type::Int;
};

template <vcode::Op kOp, class Sem, Type kType>
struct TypedElementwise {
  using Sig = Signature<kOp, kType>;
  const void* in[3];
  typename Sig::Out* out;
  unsigned long long* fault;  // INT / and %: cvl_sem::trap_word of the first trapping element

  template <std::size_t k>
  CVL_HD typename Sig::template In<k> input(std::size_t j) const {
    return static_cast<const typename Sig::template In<k>*>(in[k])[j];
  }
  CVL_HD void operator()(std::size_t j) const {
    if constexpr (checks_divisor<Sem> && kType == Type::Int) {
      const std::int32_t divisor = input<1>(j);
      if (Sem::traps(input<0>(j), divisor)) {
        record_fault(fault, cvl_sem::trap_word(j, divisor));
        out[j] = 0;
        return;
      }
    }
    if constexpr (Sig::arity == 1)
      out[j] = Sem::apply(input<0>(j));
    else if constexpr (Sig::arity == 2)
      out[j] = Sem::apply(input<0>(j), input<1>(j));
    else
      out[j] = Sem::apply(input<0>(j), input<1>(j), input<2>(j));
  }
};

// SELECT on element bits (the same result as cvl_sem::Select, one instantiation per width).
template <class Bits>
struct TypedSelect {
  const std::uint8_t* flags;
  const Bits* a;
  const Bits* b;
  Bits* out;
  CVL_HD void operator()(std::size_t j) const { out[j] = flags[j] ? a[j] : b[j]; }
};

// BOOL upload: any non-zero byte is T.
struct NormalizeBools {
  std::uint8_t* data;
  CVL_HD void operator()(std::size_t j) const { data[j] = data[j] != 0; }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
