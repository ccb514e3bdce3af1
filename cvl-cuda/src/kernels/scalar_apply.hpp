// One elementwise operation on one element, for every op and type, over a small tagged value:
// the elementwise kernel and the FUSED interpreter both evaluate through apply_op, which reads
// the shared scalar semantics (cvl/scalar_semantics.hpp), so results equal cvl-cpu's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/scalar_semantics.hpp"
#include "cvl/types.hpp"
#include "platform.hpp"
#include "vcode/op.hpp"

namespace cvl::CVL_CUDA_NS {

// An element of any type: INT and BOOL (0/1) in i, FLOAT in f.
struct Scalar {
  double f;
  int i;
};

CVL_HOST_DEVICE inline Scalar load_element(const void* data, Type type, std::size_t j) {
  Scalar s{0.0, 0};
  if (type == Type::Float)
    s.f = static_cast<const double*>(data)[j];
  else if (type == Type::Int)
    s.i = static_cast<const std::int32_t*>(data)[j];
  else
    s.i = static_cast<const std::uint8_t*>(data)[j];
  return s;
}

CVL_HOST_DEVICE inline void store_element(void* data, Type type, std::size_t j, Scalar s) {
  if (type == Type::Float)
    static_cast<double*>(data)[j] = s.f;
  else if (type == Type::Int)
    static_cast<std::int32_t*>(data)[j] = s.i;
  else
    static_cast<std::uint8_t*>(data)[j] = static_cast<std::uint8_t>(s.i);
}

// How an INT / or % trapped (the first trap of an evaluation is kept).
enum Trap : int { kNoTrap = 0, kDivisionByZero = 1, kDivisionOverflow = 2 };
CVL_HOST_DEVICE inline void note_trap(int& trap, int divisor) {
  if (trap == kNoTrap) trap = divisor == 0 ? kDivisionByZero : kDivisionOverflow;
}
// A fault word for a trap at element j: the smallest word is the first element, as cvl-cpu
// reports it, and its low bit says which trap.
CVL_HOST_DEVICE inline std::uint64_t trap_word(std::size_t j, int trap) {
  return static_cast<std::uint64_t>(j) * 2 + (trap == kDivisionOverflow ? 1 : 0);
}
inline const char* trap_message(std::uint64_t word) {
  return (word & 1) ? "integer overflow in division (-2147483648 / -1)" : "division by zero";
}

// `type` is the instruction's type. An INT / or % whose divisor traps notes it in `trap` and
// gives 0.
CVL_HOST_DEVICE inline Scalar apply_op(vcode::Op op, Type type, Scalar a, Scalar b, Scalar c,
                                       int& trap) {
  using namespace cvl_sem;
  using vcode::Op;
  const bool is_float = type == Type::Float;
  Scalar r{0.0, 0};
  switch (op) {
    case Op::Add:
      if (is_float)
        r.f = add_f(a.f, b.f);
      else
        r.i = add_i(a.i, b.i);
      break;
    case Op::Sub:
      if (is_float)
        r.f = sub_f(a.f, b.f);
      else
        r.i = sub_i(a.i, b.i);
      break;
    case Op::Mul:
      if (is_float)
        r.f = mul_f(a.f, b.f);
      else
        r.i = mul_i(a.i, b.i);
      break;
    case Op::Div:
      if (is_float) {
        r.f = div_f(a.f, b.f);
      } else if (divisor_traps(a.i, b.i)) {
        note_trap(trap, b.i);
      } else {
        r.i = div_i(a.i, b.i);
      }
      break;
    case Op::Mod:
      if (divisor_traps(a.i, b.i))
        note_trap(trap, b.i);
      else
        r.i = mod_i(a.i, b.i);
      break;
    case Op::Less:
      r.i = is_float ? a.f < b.f : a.i < b.i;
      break;
    case Op::LessEq:
      r.i = is_float ? a.f <= b.f : a.i <= b.i;
      break;
    case Op::Greater:
      r.i = is_float ? a.f > b.f : a.i > b.i;
      break;
    case Op::GreaterEq:
      r.i = is_float ? a.f >= b.f : a.i >= b.i;
      break;
    case Op::Equal:
      r.i = is_float ? a.f == b.f : a.i == b.i;
      break;
    case Op::NotEqual:
      r.i = is_float ? a.f != b.f : a.i != b.i;
      break;
    case Op::LShift:
      r.i = lshift(a.i, b.i);
      break;
    case Op::RShift:
      r.i = rshift(a.i, b.i);
      break;
    case Op::Not:
      r.i = type == Type::Bool ? not_b(static_cast<b8>(a.i)) : not_i(a.i);
      break;
    case Op::And:
      r.i = a.i & b.i;
      break;
    case Op::Or:
      r.i = a.i | b.i;
      break;
    case Op::Xor:
      r.i = a.i ^ b.i;
      break;
    case Op::Select:
      r = a.i ? b : c;
      break;
    case Op::Floor:
      r.i = floor_to_int(a.f);
      break;
    case Op::Ceil:
      r.i = ceil_to_int(a.f);
      break;
    case Op::Trunc:
      r.i = trunc_to_int(a.f);
      break;
    case Op::Round:
      r.i = round_to_int(a.f);
      break;
    case Op::Log:
      r.f = log_f(a.f);
      break;
    case Op::Sqrt:
      r.f = sqrt_f(a.f);
      break;
    case Op::Exp:
      r.f = exp_f(a.f);
      break;
    case Op::Sin:
      r.f = sin_f(a.f);
      break;
    case Op::Cos:
      r.f = cos_f(a.f);
      break;
    case Op::Tan:
      r.f = tan_f(a.f);
      break;
    case Op::Asin:
      r.f = asin_f(a.f);
      break;
    case Op::Acos:
      r.f = acos_f(a.f);
      break;
    case Op::Atan:
      r.f = atan_f(a.f);
      break;
    case Op::Sinh:
      r.f = sinh_f(a.f);
      break;
    case Op::Cosh:
      r.f = cosh_f(a.f);
      break;
    case Op::Tanh:
      r.f = tanh_f(a.f);
      break;
    case Op::IntToFloat:
      r.f = int_to_float(a.i);
      break;
    case Op::IntToBool:
      r.i = int_to_bool(a.i);
      break;
    case Op::BoolToInt:
      r.i = bool_to_int(static_cast<b8>(a.i));
      break;
    default:
      break;  // not elementwise: the caller has checked
  }
  return r;
}

}  // namespace cvl::CVL_CUDA_NS
