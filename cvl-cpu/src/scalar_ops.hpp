// The scalar semantics of spec/CVL.md §2 (what the x86-64 reference computes, without undefined
// behaviour) and the combining operators of scans and reductions with their identities.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "cvl/types.hpp"
#include "vcode/op.hpp"

namespace cvl::cpu {

// INT arithmetic wraps modulo 2^32: computed on uint32_t, where overflow is defined.
inline std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t wrap_sub(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
inline std::int32_t wrap_mul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

// x86-64 uses the shift count modulo 32; RSHIFT is arithmetic.
inline std::int32_t shift_left(std::int32_t a, std::int32_t count) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) << (count & 31));
}
inline std::int32_t shift_right(std::int32_t a, std::int32_t count) { return a >> (count & 31); }

// cvttsd2si: NaN, and values whose truncation does not fit in 32 bits, give INT_MIN.
inline std::int32_t x86_double_to_int(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? static_cast<std::int32_t>(x)
                                                 : std::numeric_limits<std::int32_t>::min();
}

// (int)floor(x) and (int)ceil(x) with cvttsd2si's out-of-range result, without a libm call:
// the truncation is corrected by one where it went the wrong way. floor(x) fits exactly when
// -2^31 <= x < 2^31, ceil(x) when -2^31 - 1 < x <= 2^31 - 1.
inline std::int32_t x86_floor_to_int(double x) {
  if (!(x >= -2147483648.0 && x < 2147483648.0)) return std::numeric_limits<std::int32_t>::min();
  auto t = static_cast<std::int32_t>(x);
  return t - (static_cast<double>(t) > x ? 1 : 0);
}
inline std::int32_t x86_ceil_to_int(double x) {
  if (!(x > -2147483649.0 && x <= 2147483647.0)) return std::numeric_limits<std::int32_t>::min();
  auto t = static_cast<std::int32_t>(x);
  return t + (static_cast<double>(t) < x ? 1 : 0);
}

// The "infinities" of the FLOAT MAX/MIN identities: (double)(float)1.0e36, not ±inf.
inline constexpr double kFloatHuge = static_cast<double>(1.0e36f);

// Combining operators, applied as apply(running, element) from the identity, left to right.
// Regrouped (as threads do) they give the sequential result for INT and BOOL, for FLOAT MAX/MIN
// only without NaN, for FLOAT + and * only up to rounding.
template <class T>
struct Plus {
  using value_type = T;
  static constexpr T identity = T(0);
  static T apply(T s, T x) {
    if constexpr (std::is_integral_v<T>)
      return wrap_add(s, x);
    else
      return s + x;
  }
};
template <class T>
struct Times {
  using value_type = T;
  static constexpr T identity = T(1);
  static T apply(T s, T x) {
    if constexpr (std::is_integral_v<T>)
      return wrap_mul(s, x);
    else
      return s * x;
  }
};
template <class T>
struct Max {
  using value_type = T;
  static constexpr T identity = [] {
    if constexpr (std::is_integral_v<T>)
      return T(std::numeric_limits<std::int32_t>::min());
    else
      return T(-kFloatHuge);
  }();
  static T apply(T s, T x) { return s > x ? s : x; }
};
template <class T>
struct Min {
  using value_type = T;
  static constexpr T identity = [] {
    if constexpr (std::is_integral_v<T>)
      return T(std::numeric_limits<std::int32_t>::max());
    else
      return T(kFloatHuge);
  }();
  static T apply(T s, T x) { return s < x ? s : x; }
};
// BOOL is uint8_t holding 0/1, so the bitwise operators are the logical ones; AND's identity
// is all ones for INT and T (1) for BOOL.
template <class T>
struct And {
  using value_type = T;
  static constexpr T identity = std::is_same_v<T, std::uint8_t> ? T(1) : T(-1);
  static T apply(T s, T x) { return static_cast<T>(s & x); }
};
template <class T>
struct Or {
  using value_type = T;
  static constexpr T identity = T(0);
  static T apply(T s, T x) { return static_cast<T>(s | x); }
};
template <class T>
struct Xor {
  using value_type = T;
  static constexpr T identity = T(0);
  static T apply(T s, T x) { return static_cast<T>(s ^ x); }
};

// A NaN makes FLOAT MAX/MIN order-dependent (max(s, NaN) = NaN but max(NaN, x) = x).
template <class C>
inline constexpr bool kNanSensitive = std::is_floating_point_v<typename C::value_type> &&
                                      (std::is_same_v<C, Max<typename C::value_type>> ||
                                       std::is_same_v<C, Min<typename C::value_type>>);

[[noreturn]] void unsupported(vcode::Op op, Type type);

// Calls f.template operator()<Combine<T>>() for the scan or reduce `op` on element type `type`.
template <class F>
decltype(auto) with_combine(vcode::Op op, Type type, F&& f) {
  using vcode::Op;
  auto numeric = [&]<template <class> class C>() -> decltype(auto) {
    if (type == Type::Int) return f.template operator()<C<std::int32_t>>();
    if (type == Type::Float) return f.template operator()<C<double>>();
    unsupported(op, type);
  };
  auto logical = [&]<template <class> class C>() -> decltype(auto) {
    if (type == Type::Int) return f.template operator()<C<std::int32_t>>();
    if (type == Type::Bool) return f.template operator()<C<std::uint8_t>>();
    unsupported(op, type);
  };
  switch (op) {
    case Op::PlusScan:
    case Op::PlusReduce:
      return numeric.template operator()<Plus>();
    case Op::MulScan:
    case Op::MulReduce:
      return numeric.template operator()<Times>();
    case Op::MaxScan:
    case Op::MaxReduce:
      return numeric.template operator()<Max>();
    case Op::MinScan:
    case Op::MinReduce:
      return numeric.template operator()<Min>();
    case Op::AndScan:
    case Op::AndReduce:
      return logical.template operator()<And>();
    case Op::OrScan:
    case Op::OrReduce:
      return logical.template operator()<Or>();
    case Op::XorScan:
    case Op::XorReduce:
      return logical.template operator()<Xor>();
    default:
      unsupported(op, type);
  }
}

}  // namespace cvl::cpu
