// One elementwise operation on one element, for every op and type, over a small tagged value:
// the FUSED interpreter evaluates through apply_op, which applies the shared scalar semantics
// (cvl/scalar_semantics.hpp), so results equal cvl-cpu's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/op_dispatch.hpp"
#include "cvl/types.hpp"
#include "platform.hpp"
#include "vcode/op.hpp"

namespace cvl::CVL_CUDA_NS {

// An element of any type: INT and BOOL (0/1) in i, FLOAT in f.
struct Scalar {
  double f;
  int i;
};

CVL_HD Scalar load_element(const void* data, Type type, std::size_t j) {
  Scalar s{0.0, 0};
  if (type == Type::Float)
    s.f = static_cast<const double*>(data)[j];
  else if (type == Type::Int)
    s.i = static_cast<const std::int32_t*>(data)[j];
  else
    s.i = static_cast<const std::uint8_t*>(data)[j];
  return s;
}

CVL_HD void store_element(void* data, Type type, std::size_t j, Scalar s) {
  if (type == Type::Float)
    static_cast<double*>(data)[j] = s.f;
  else if (type == Type::Int)
    static_cast<std::int32_t*>(data)[j] = s.i;
  else
    static_cast<std::uint8_t*>(data)[j] = static_cast<std::uint8_t>(s.i);
}

// The first INT division trap of an evaluation: the divisor that trapped (0, or -1 under INT_MIN),
// for cvl_sem::trap_word.
struct TrapNote {
  bool trapped = false;
  int divisor = 0;
  CVL_HD void note(int d) {
    if (!trapped) trapped = true, divisor = d;
  }
};

namespace detail {

template <Type kType>
CVL_HD host_t<kType> get(Scalar s) {
  if constexpr (kType == Type::Float)
    return s.f;
  else
    return static_cast<host_t<kType>>(s.i);
}
template <Type kType>
CVL_HD Scalar put(host_t<kType> v) {
  Scalar r{0.0, 0};
  if constexpr (kType == Type::Float)
    r.f = v;
  else
    r.i = static_cast<int>(v);
  return r;
}

// Op kOp (cvl_sem rule Sem) at element type kType, on operands of the types ops.def gives it.
template <vcode::Op kOp, class Sem, Type kType>
CVL_HD Scalar apply_typed(Scalar a, Scalar b, Scalar c, TrapNote& trap) {
  using Sig = Signature<kOp, kType>;
  if constexpr (checks_divisor<Sem> && kType == Type::Int) {
    if (Sem::traps(a.i, b.i)) {
      trap.note(b.i);
      return Scalar{0.0, 0};
    }
  }
  if constexpr (Sig::arity == 1)
    return put<Sig::result>(Sem::apply(get<Sig::operand(0)>(a)));
  else if constexpr (Sig::arity == 2)
    return put<Sig::result>(Sem::apply(get<Sig::operand(0)>(a), get<Sig::operand(1)>(b)));
  else
    return put<Sig::result>(
        Sem::apply(get<Sig::operand(0)>(a), get<Sig::operand(1)>(b), get<Sig::operand(2)>(c)));
}

template <vcode::Op kOp, class Sem>
CVL_HD Scalar apply_types(Type type, Scalar a, Scalar b, Scalar c, TrapNote& trap) {
  if constexpr (vcode::info(kOp).family == vcode::Family::Elementwise) {
    switch (type) {
      case Type::Int:
        if constexpr (takes_type(kOp, Type::Int)) return apply_typed<kOp, Sem, Type::Int>(a, b, c, trap);
        break;
      case Type::Float:
        if constexpr (takes_type(kOp, Type::Float))
          return apply_typed<kOp, Sem, Type::Float>(a, b, c, trap);
        break;
      case Type::Bool:
        if constexpr (takes_type(kOp, Type::Bool))
          return apply_typed<kOp, Sem, Type::Bool>(a, b, c, trap);
        break;
    }
  }
  return Scalar{0.0, 0};  // not elementwise, or a type it does not take: the caller has checked
}

}  // namespace detail

// Elementwise `op` with instruction type `type` on one element, through its cvl_sem rule (a
// switch generated from ops.def). An INT / or % whose divisor traps notes it and gives 0.
CVL_HD Scalar apply_op(vcode::Op op, Type type, Scalar a, Scalar b, Scalar c,
                                       TrapNote& trap) {
  switch (op) {
#define X(id, spelling, syntax, types, implied, family, sem, cost, shape, args, results, lengths, meaning) \
  case vcode::Op::id:                                                                           \
    return detail::apply_types<vcode::Op::id, cvl_sem::sem>(type, a, b, c, trap);
#include "vcode/ops.def"
#undef X
  }
  return Scalar{0.0, 0};
}

}  // namespace cvl::CVL_CUDA_NS
