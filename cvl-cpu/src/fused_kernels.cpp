#include "fused_kernels.hpp"

#include <cstdint>
#include <string>

#include "cvl/scalar_semantics.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using I32 = std::int32_t;
using F64 = double;
using B8 = std::uint8_t;

template <class Out, class A, auto f>
void unary(std::size_t n, const void* const* in, void* out) {
  const A* a = static_cast<const A*>(in[0]);
  Out* o = static_cast<Out*>(out);
  for (std::size_t i = 0; i < n; ++i) o[i] = f(a[i]);
}

template <class Out, class A, class B, auto f>
void binary(std::size_t n, const void* const* in, void* out) {
  const A* a = static_cast<const A*>(in[0]);
  const B* b = static_cast<const B*>(in[1]);
  Out* o = static_cast<Out*>(out);
  for (std::size_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}

// SELECT on the element bits, branch-free like elementwise.cpp.
template <class Bits>
void select_bits(std::size_t n, const void* const* in, void* out) {
  const B8* flags = static_cast<const B8*>(in[0]);
  const Bits* a = static_cast<const Bits*>(in[1]);
  const Bits* b = static_cast<const Bits*>(in[2]);
  Bits* o = static_cast<Bits*>(out);
  for (std::size_t i = 0; i < n; ++i) {
    const auto mask = static_cast<Bits>(Bits{0} - static_cast<Bits>(flags[i]));
    o[i] = static_cast<Bits>((a[i] & mask) | (b[i] & static_cast<Bits>(~mask)));
  }
}

template <class T> B8 less(T a, T b) { return a < b; }
template <class T> B8 less_eq(T a, T b) { return a <= b; }
template <class T> B8 greater(T a, T b) { return a > b; }
template <class T> B8 greater_eq(T a, T b) { return a >= b; }
template <class T> B8 equal(T a, T b) { return a == b; }
template <class T> B8 not_equal(T a, T b) { return a != b; }
template <class T> T bit_and(T a, T b) { return static_cast<T>(a & b); }
template <class T> T bit_or(T a, T b) { return static_cast<T>(a | b); }
template <class T> T bit_xor(T a, T b) { return static_cast<T>(a ^ b); }

// Comparisons exist on INT and FLOAT (T1).
#define CVL_COMPARE(fn)                                     \
  (type == Type::Int ? &binary<B8, I32, I32, fn<I32>>       \
                     : &binary<B8, F64, F64, fn<F64>>)

}  // namespace

Kernel kernel_for(Op op, Type type) {
  namespace s = cvl_sem;
  const bool is_int = type == Type::Int;
  switch (op) {
    case Op::Add: return is_int ? &binary<I32, I32, I32, s::add_i> : &binary<F64, F64, F64, s::add_f>;
    case Op::Sub: return is_int ? &binary<I32, I32, I32, s::sub_i> : &binary<F64, F64, F64, s::sub_f>;
    case Op::Mul: return is_int ? &binary<I32, I32, I32, s::mul_i> : &binary<F64, F64, F64, s::mul_f>;
    case Op::Div: return is_int ? &binary<I32, I32, I32, s::div_i> : &binary<F64, F64, F64, s::div_f>;
    case Op::Mod: return &binary<I32, I32, I32, s::mod_i>;
    case Op::Less: return CVL_COMPARE(less);
    case Op::LessEq: return CVL_COMPARE(less_eq);
    case Op::Greater: return CVL_COMPARE(greater);
    case Op::GreaterEq: return CVL_COMPARE(greater_eq);
    case Op::Equal: return CVL_COMPARE(equal);
    case Op::NotEqual: return CVL_COMPARE(not_equal);
    case Op::LShift: return &binary<I32, I32, I32, s::lshift>;
    case Op::RShift: return &binary<I32, I32, I32, s::rshift>;
    case Op::Not: return is_int ? &unary<I32, I32, s::not_i> : &unary<B8, B8, s::not_b>;
    case Op::And: return is_int ? &binary<I32, I32, I32, bit_and<I32>> : &binary<B8, B8, B8, bit_and<B8>>;
    case Op::Or: return is_int ? &binary<I32, I32, I32, bit_or<I32>> : &binary<B8, B8, B8, bit_or<B8>>;
    case Op::Xor: return is_int ? &binary<I32, I32, I32, bit_xor<I32>> : &binary<B8, B8, B8, bit_xor<B8>>;
    case Op::Select:
      return type == Type::Float ? &select_bits<std::uint64_t>
             : is_int            ? &select_bits<std::uint32_t>
                                 : &select_bits<std::uint8_t>;
    case Op::Floor: return &unary<I32, F64, s::floor_to_int>;
    case Op::Ceil: return &unary<I32, F64, s::ceil_to_int>;
    case Op::Trunc: return &unary<I32, F64, s::trunc_to_int>;
    case Op::Round: return &unary<I32, F64, s::round_to_int>;
    case Op::Log: return &unary<F64, F64, s::log_f>;
    case Op::Sqrt: return &unary<F64, F64, s::sqrt_f>;
    case Op::Exp: return &unary<F64, F64, s::exp_f>;
    case Op::Sin: return &unary<F64, F64, s::sin_f>;
    case Op::Cos: return &unary<F64, F64, s::cos_f>;
    case Op::Tan: return &unary<F64, F64, s::tan_f>;
    case Op::Asin: return &unary<F64, F64, s::asin_f>;
    case Op::Acos: return &unary<F64, F64, s::acos_f>;
    case Op::Atan: return &unary<F64, F64, s::atan_f>;
    case Op::Sinh: return &unary<F64, F64, s::sinh_f>;
    case Op::Cosh: return &unary<F64, F64, s::cosh_f>;
    case Op::Tanh: return &unary<F64, F64, s::tanh_f>;
    case Op::IntToFloat: return &unary<F64, I32, s::int_to_float>;
    case Op::IntToBool: return &unary<B8, I32, s::int_to_bool>;
    case Op::BoolToInt: return &unary<I32, B8, s::bool_to_int>;
    default: break;
  }
  throw InternalError("FUSED: " + std::string(vcode::spelling(op)) +
                      " is not an elementwise operation");
}
#undef CVL_COMPARE

bool compute_bound(Op op) {
  return op >= Op::Log && op <= Op::Tanh;
}

}  // namespace cvl::cpu
