// Elementwise ops (spec/CVL.md §3.1): one template loop per arity, instantiated per op functor,
// so every loop is a plain indexed loop the compiler can vectorize.
#include <cmath>
#include <cstdint>
#include <string>

#include "families.hpp"
#include "scalar_ops.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using I32 = std::int32_t;
using F64 = double;
using B8 = std::uint8_t;

// The result takes over the first operand that has its type and no other handle, else new memory.
// Callers take their input pointers first: the storage stays alive inside the result.
Vector result_for(std::span<Vector> operands, Type type, std::size_t n) {
  for (Vector& v : operands)
    if (reusable(v, type, n)) return std::move(v);
  return allocate(type, n);
}

template <class A, class Out, class F>
Vector map1(const Parallel& par, std::span<Vector> ops, Type out_type, std::size_t threshold, F f) {
  const std::size_t n = ops[0].length;
  const A* a = elements<A>(ops[0]);
  Vector out = result_for(ops, out_type, n);
  Out* o = elements<Out>(out);
  parallel_for(par, n, threshold, [=](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) o[i] = f(a[i]);
  });
  return out;
}

template <class A, class B, class Out, class F>
Vector map2(const Parallel& par, std::span<Vector> ops, Type out_type, std::size_t threshold, F f) {
  const std::size_t n = ops[0].length;
  const A* a = elements<A>(ops[0]);
  const B* b = elements<B>(ops[1]);
  Vector out = result_for(ops, out_type, n);
  Out* o = elements<Out>(out);
  parallel_for(par, n, threshold, [=](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) o[i] = f(a[i], b[i]);
  });
  return out;
}

// Same-typed binary op on INT and FLOAT (f is generic: it sees int32_t or double).
template <class F>
Vector numeric2(const Parallel& par, std::span<Vector> ops, Type type, Op op, F f) {
  if (type == Type::Int) return map2<I32, I32, I32>(par, ops, type, kMemoryBoundThreshold, f);
  if (type == Type::Float) return map2<F64, F64, F64>(par, ops, type, kMemoryBoundThreshold, f);
  unsupported(op, type);
}

// Comparison of two INT, FLOAT (or BOOL) vectors giving BOOL.
template <class F>
Vector compare(const Parallel& par, std::span<Vector> ops, Type type, F f) {
  auto as_bool = [f](auto a, auto b) { return static_cast<B8>(f(a, b)); };
  switch (type) {
    case Type::Int:
      return map2<I32, I32, B8>(par, ops, Type::Bool, kMemoryBoundThreshold, as_bool);
    case Type::Float:
      return map2<F64, F64, B8>(par, ops, Type::Bool, kMemoryBoundThreshold, as_bool);
    default:
      return map2<B8, B8, B8>(par, ops, Type::Bool, kMemoryBoundThreshold, as_bool);
  }
}

// NOT/AND/OR/XOR: bitwise on INT; on BOOL (0/1 bytes) the same operators are the logical ones.
template <class F>
Vector logical2(const Parallel& par, std::span<Vector> ops, Type type, Op op, F f) {
  if (type == Type::Int) return map2<I32, I32, I32>(par, ops, type, kMemoryBoundThreshold, f);
  if (type == Type::Bool) return map2<B8, B8, B8>(par, ops, type, kMemoryBoundThreshold, f);
  unsupported(op, type);
}

template <class F>
Vector float_function(const Parallel& par, std::span<Vector> ops, F fn) {
  return map1<F64, F64>(par, ops, Type::Float, kComputeBoundThreshold, fn);
}

// INT / and %. The classic dies of SIGFPE on a zero divisor and on INT_MIN / -1; we check the
// divisors first, so the loop cannot trap. The quotient is computed in double, which is exact for
// 32-bit operands (the rounding error of the quotient is smaller than its distance to the next
// integer) and, unlike idiv, vectorizes.
Vector divide(const Parallel& par, std::span<Vector> ops, bool remainder) {
  const std::size_t n = ops[0].length;
  const I32* a = elements<I32>(ops[0]);
  const I32* b = elements<I32>(ops[1]);
  constexpr I32 int_min = std::numeric_limits<I32>::min();
  auto traps = [=](std::size_t i) { return (b[i] == 0) | ((a[i] == int_min) & (b[i] == -1)); };
  if (parallel_any(par, n, kMemoryBoundThreshold, traps)) {
    for (std::size_t i = 0; i < n; ++i) {
      if (b[i] == 0) throw Error("division by zero");
      if (traps(i)) throw Error("integer overflow in division (-2147483648 / -1)");
    }
  }
  if (remainder)
    return map2<I32, I32, I32>(par, ops, Type::Int, kMemoryBoundThreshold, [](I32 x, I32 y) {
      auto quotient = static_cast<I32>(static_cast<double>(x) / static_cast<double>(y));
      return wrap_sub(x, wrap_mul(quotient, y));
    });
  return map2<I32, I32, I32>(par, ops, Type::Int, kMemoryBoundThreshold, [](I32 x, I32 y) {
    return static_cast<I32>(static_cast<double>(x) / static_cast<double>(y));
  });
}

// SELECT on the element bits: the 0/1 flag widened to an all-zeros/all-ones mask, so the loop
// has no branch (random flags would mispredict half the time) and vectorizes.
template <class Bits>
Vector select_bits(const Parallel& par, std::span<Vector> ops, Type type) {
  const std::size_t n = ops[0].length;
  const B8* flags = elements<B8>(ops[0]);
  const Bits* a = elements<Bits>(ops[1]);
  const Bits* b = elements<Bits>(ops[2]);
  Vector out = result_for(ops, type, n);
  Bits* o = elements<Bits>(out);
  parallel_for(par, n, kMemoryBoundThreshold, [=](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      const auto mask = static_cast<Bits>(Bits{0} - static_cast<Bits>(flags[i]));
      o[i] = static_cast<Bits>((a[i] & mask) | (b[i] & static_cast<Bits>(~mask)));
    }
  });
  return out;
}

}  // namespace

[[noreturn]] void unsupported(Op op, Type type) {
  throw InternalError(std::string(vcode::spelling(op)) + " is not defined on " + type_name(type));
}

Vector elementwise(const Context& ctx, Op op, Type type, std::span<Vector> ops) {
  const Parallel& par = ctx.par;
  constexpr std::size_t cheap = kMemoryBoundThreshold;
  switch (op) {
    case Op::Add:
      return numeric2(par, ops, type, op, [](auto a, auto b) {
        if constexpr (std::is_integral_v<decltype(a)>)
          return wrap_add(a, b);
        else
          return a + b;
      });
    case Op::Sub:
      return numeric2(par, ops, type, op, [](auto a, auto b) {
        if constexpr (std::is_integral_v<decltype(a)>)
          return wrap_sub(a, b);
        else
          return a - b;
      });
    case Op::Mul:
      return numeric2(par, ops, type, op, [](auto a, auto b) {
        if constexpr (std::is_integral_v<decltype(a)>)
          return wrap_mul(a, b);
        else
          return a * b;
      });
    case Op::Div:
      if (type == Type::Int) return divide(par, ops, false);
      return numeric2(par, ops, type, op, [](auto a, auto b) { return a / b; });
    case Op::Mod:
      return divide(par, ops, true);

    case Op::Less:
      return compare(par, ops, type, [](auto a, auto b) { return a < b; });
    case Op::LessEq:
      return compare(par, ops, type, [](auto a, auto b) { return a <= b; });
    case Op::Greater:
      return compare(par, ops, type, [](auto a, auto b) { return a > b; });
    case Op::GreaterEq:
      return compare(par, ops, type, [](auto a, auto b) { return a >= b; });
    case Op::Equal:
      return compare(par, ops, type, [](auto a, auto b) { return a == b; });
    case Op::NotEqual:
      return compare(par, ops, type, [](auto a, auto b) { return a != b; });

    case Op::LShift:
      return map2<I32, I32, I32>(par, ops, Type::Int, cheap,
                                 [](I32 a, I32 b) { return shift_left(a, b); });
    case Op::RShift:
      return map2<I32, I32, I32>(par, ops, Type::Int, cheap,
                                 [](I32 a, I32 b) { return shift_right(a, b); });

    case Op::Not:
      if (type == Type::Int)
        return map1<I32, I32>(par, ops, type, cheap, [](I32 a) { return static_cast<I32>(~a); });
      if (type == Type::Bool)
        return map1<B8, B8>(par, ops, type, cheap, [](B8 a) { return static_cast<B8>(a == 0); });
      unsupported(op, type);
    case Op::And:
      return logical2(par, ops, type, op, [](auto a, auto b) { return decltype(a)(a & b); });
    case Op::Or:
      return logical2(par, ops, type, op, [](auto a, auto b) { return decltype(a)(a | b); });
    case Op::Xor:
      return logical2(par, ops, type, op, [](auto a, auto b) { return decltype(a)(a ^ b); });

    case Op::Select:
      return with_element_bits(type,
                               [&]<class Bits>() { return select_bits<Bits>(par, ops, type); });

    case Op::Floor:
      return map1<F64, I32>(par, ops, Type::Int, cheap, [](F64 x) { return x86_floor_to_int(x); });
    case Op::Ceil:
      return map1<F64, I32>(par, ops, Type::Int, cheap, [](F64 x) { return x86_ceil_to_int(x); });
    case Op::Trunc:
      return map1<F64, I32>(par, ops, Type::Int, cheap, [](F64 x) { return x86_double_to_int(x); });
    case Op::Round:  // (int)(x + 0.5): the addition rounds first, then truncation toward zero
      return map1<F64, I32>(par, ops, Type::Int, cheap,
                            [](F64 x) { return x86_double_to_int(x + 0.5); });

    case Op::Log:
      return float_function(par, ops, [](F64 x) { return std::log(x); });
    case Op::Sqrt:
      return float_function(par, ops, [](F64 x) { return std::sqrt(x); });
    case Op::Exp:
      return float_function(par, ops, [](F64 x) { return std::exp(x); });
    case Op::Sin:
      return float_function(par, ops, [](F64 x) { return std::sin(x); });
    case Op::Cos:
      return float_function(par, ops, [](F64 x) { return std::cos(x); });
    case Op::Tan:
      return float_function(par, ops, [](F64 x) { return std::tan(x); });
    case Op::Asin:
      return float_function(par, ops, [](F64 x) { return std::asin(x); });
    case Op::Acos:
      return float_function(par, ops, [](F64 x) { return std::acos(x); });
    case Op::Atan:
      return float_function(par, ops, [](F64 x) { return std::atan(x); });
    case Op::Sinh:
      return float_function(par, ops, [](F64 x) { return std::sinh(x); });
    case Op::Cosh:
      return float_function(par, ops, [](F64 x) { return std::cosh(x); });
    case Op::Tanh:
      return float_function(par, ops, [](F64 x) { return std::tanh(x); });

    case Op::IntToFloat:
      return map1<I32, F64>(par, ops, Type::Float, cheap,
                            [](I32 x) { return static_cast<F64>(x); });
    case Op::IntToBool:
      return map1<I32, B8>(par, ops, Type::Bool, cheap,
                           [](I32 x) { return static_cast<B8>(x != 0); });
    case Op::BoolToInt:
      return map1<B8, I32>(par, ops, Type::Int, cheap, [](B8 x) { return static_cast<I32>(x); });

    default:
      break;
  }
  throw InternalError(std::string(vcode::spelling(op)) + " is not an elementwise operation");
}

}  // namespace cvl::cpu
