// The elementwise kernel body: one to three operands of any type, the op decided per launch.
#pragma once

#include "kernels/scalar_apply.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

struct TypedInput {
  const void* data = nullptr;
  Type type = Type::Int;
};

struct Elementwise {
  vcode::Op op;
  Type type;  // the instruction's type
  TypedInput in[3];
  int arity;
  void* out;
  Type out_type;
  unsigned long long* fault;  // INT / and %: trap_word of the first trapping element

  CVL_HOST_DEVICE void operator()(std::size_t j) const {
    Scalar x[3] = {{0.0, 0}, {0.0, 0}, {0.0, 0}};
    for (int a = 0; a < arity; ++a) x[a] = load_element(in[a].data, in[a].type, j);
    int trap = kNoTrap;
    Scalar r = apply_op(op, type, x[0], x[1], x[2], trap);
    if (trap != kNoTrap) record_fault(fault, trap_word(j, trap));
    store_element(out, out_type, j, r);
  }
};

// BOOL upload: any non-zero byte is T.
struct NormalizeBools {
  std::uint8_t* data;
  CVL_HOST_DEVICE void operator()(std::size_t j) const { data[j] = data[j] != 0; }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
