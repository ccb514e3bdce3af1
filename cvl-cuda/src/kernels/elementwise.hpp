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

// The common binary ops with the op and element types fixed at compile time: the switch in
// apply_op folds away and the loads are plain typed loads the compiler can vectorize.
template <vcode::Op kOp, Type kType, class In, class Out>
struct TypedBinary {
  const In* a;
  const In* b;
  Out* out;
  unsigned long long* fault;
  CVL_HOST_DEVICE void operator()(std::size_t j) const {
    Scalar x{0.0, 0}, y{0.0, 0};
    if constexpr (kType == Type::Float) {
      x.f = a[j];
      y.f = b[j];
    } else {
      x.i = a[j];
      y.i = b[j];
    }
    int trap = kNoTrap;
    Scalar r = apply_op(kOp, kType, x, y, y, trap);
    if (trap != kNoTrap) record_fault(fault, trap_word(j, trap));
    if constexpr (sizeof(Out) == 8)
      out[j] = r.f;
    else
      out[j] = static_cast<Out>(r.i);
  }
};

// The same for unary ops (conversions, FLOAT functions).
template <vcode::Op kOp, Type kType, class In, class Out>
struct TypedUnary {
  const In* a;
  Out* out;
  CVL_HOST_DEVICE void operator()(std::size_t j) const {
    Scalar x{0.0, 0};
    if constexpr (sizeof(In) == 8)
      x.f = a[j];
    else
      x.i = a[j];
    int trap = kNoTrap;
    Scalar r = apply_op(kOp, kType, x, x, x, trap);
    if constexpr (sizeof(Out) == 8)
      out[j] = r.f;
    else
      out[j] = static_cast<Out>(r.i);
  }
};

// SELECT on element bits.
template <class Bits>
struct TypedSelect {
  const std::uint8_t* flags;
  const Bits* a;
  const Bits* b;
  Bits* out;
  CVL_HOST_DEVICE void operator()(std::size_t j) const { out[j] = flags[j] ? a[j] : b[j]; }
};

// BOOL upload: any non-zero byte is T.
struct NormalizeBools {
  std::uint8_t* data;
  CVL_HOST_DEVICE void operator()(std::size_t j) const { data[j] = data[j] != 0; }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
