// Every per-element rule of VCODE (spec/CVL.md §2, §5, §6), written once for the host compiler,
// nvcc device code and NVRTC: the elementwise ops, the combiners of scans and reductions with
// their identities, RANK's sort keys, INDEX's wrapping, and the trap word of INT division. cvl-cpu
// (unfused and fused), the CUDA kernels, the generated superoperator kernels (which embed this
// file as their prelude) and fcode-opt's constant folding all evaluate through it, so results
// agree bit for bit everywhere.
//
// Each elementwise op and each combiner is a struct named after its ops.def row (the Sem column),
// whose static `apply` is overloaded on the element types the op takes: i32 for INT, f64 for
// FLOAT, b8 for BOOL. A combiner also has `identity(T)` (the argument only picks the type).
//
// Self-contained on purpose: NVRTC compiles it without the C++ standard library, so it uses only
// builtin types and the CUDA math functions (the same names as C's libm). Device code must be
// compiled without fused multiply-add contraction (nvcc --fmad=false), as the x86-64 reference
// has none.
#ifndef CVL_SCALAR_SEMANTICS_HPP
#define CVL_SCALAR_SEMANTICS_HPP

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CVL_HD __host__ __device__ __forceinline__
#else
#define CVL_HD inline
#endif
#if !defined(__CUDACC_RTC__)
#include <cmath>
#include <cstdint>
#endif

namespace cvl_sem {

typedef int i32;
typedef unsigned int u32;
#if defined(__CUDACC_RTC__)
typedef long long i64;
typedef unsigned long long u64;
#else  // the host's int64_t, so that host pointers convert (the same 8 bytes either way)
typedef std::int64_t i64;
typedef std::uint64_t u64;
#endif
typedef double f64;
typedef unsigned char b8;  // BOOL: 0 or 1

#define CVL_INT_MIN ((i32)0x80000000)
#define CVL_INT_MAX ((i32)0x7fffffff)
// The "infinities" of FLOAT MAX/MIN identities: (double)(float)1.0e36, not ±inf.
#define CVL_FLOAT_HUGE 9.999999616903162e+35

// The Sem of ops.def rows without a scalar rule (stack, control, I/O, ...).
struct None {};

// ---- INT division traps ----------------------------------------------------------------------
// INT / and % by zero, and INT_MIN / -1, are runtime errors (the classic died of SIGFPE). Every
// evaluator checks divisor_traps first; apply assumes it is false.
CVL_HD bool divisor_traps(i32 a, i32 b) { return b == 0 || (a == CVL_INT_MIN && b == -1); }
// A fault word for a trap at element j: the smallest word is the first trapping element (the
// one sequential evaluation reports) and its low bit says which trap.
CVL_HD u64 trap_word(u64 j, i32 divisor) { return j * 2 + (divisor == 0 ? 0 : 1); }
CVL_HD const char* trap_message(u64 word) {
  return (word & 1) ? "integer overflow in division (-2147483648 / -1)" : "division by zero";
}

// ---- arithmetic: INT wraps modulo 2^32, computed on unsigned where overflow is defined --------
struct Add {
  CVL_HD static i32 apply(i32 a, i32 b) { return (i32)((u32)a + (u32)b); }
  CVL_HD static f64 apply(f64 a, f64 b) { return a + b; }
  CVL_HD static constexpr i32 identity(i32) { return 0; }
  CVL_HD static constexpr f64 identity(f64) { return 0.0; }
};
struct Sub {
  CVL_HD static i32 apply(i32 a, i32 b) { return (i32)((u32)a - (u32)b); }
  CVL_HD static f64 apply(f64 a, f64 b) { return a - b; }
};
struct Mul {
  CVL_HD static i32 apply(i32 a, i32 b) { return (i32)((u32)a * (u32)b); }
  CVL_HD static f64 apply(f64 a, f64 b) { return a * b; }
  CVL_HD static constexpr i32 identity(i32) { return 1; }
  CVL_HD static constexpr f64 identity(f64) { return 1.0; }
};
// Truncating division through double is exact for 32-bit operands (the quotient's rounding error
// is smaller than its distance to the next integer), never traps, and vectorizes, unlike idiv.
// It is defined for trapping operands too (a quotient of +-inf, NaN or 2^31 gives INT_MIN):
// vector loops compute every lane before the trap check discards the result.
struct Div {
  CVL_HD static bool traps(i32 a, i32 b) { return divisor_traps(a, b); }
  CVL_HD static i32 apply(i32 a, i32 b) {
    const f64 q = (f64)a / (f64)b;
    return (q > -2147483649.0 && q < 2147483648.0) ? (i32)q : CVL_INT_MIN;
  }
  CVL_HD static f64 apply(f64 a, f64 b) { return a / b; }
};
struct Mod {  // the remainder has the sign of the dividend
  CVL_HD static bool traps(i32 a, i32 b) { return divisor_traps(a, b); }
  CVL_HD static i32 apply(i32 a, i32 b) { return Sub::apply(a, Mul::apply(Div::apply(a, b), b)); }
};

// ---- comparisons (INT and FLOAT; with a NaN operand only != holds) --------------------------
#define CVL_COMPARISON(Name, op)                                \
  struct Name {                                                 \
    CVL_HD static b8 apply(i32 a, i32 b) { return a op b; }   \
    CVL_HD static b8 apply(f64 a, f64 b) { return a op b; }   \
  };
CVL_COMPARISON(Less, <)
CVL_COMPARISON(LessEq, <=)
CVL_COMPARISON(Greater, >)
CVL_COMPARISON(GreaterEq, >=)
CVL_COMPARISON(Equal, ==)
CVL_COMPARISON(NotEqual, !=)
#undef CVL_COMPARISON

// ---- bits: x86-64 takes the shift count modulo 32; RSHIFT is arithmetic ---------------------
struct LShift {
  CVL_HD static i32 apply(i32 a, i32 count) { return (i32)((u32)a << (count & 31)); }
};
struct RShift {
  CVL_HD static i32 apply(i32 a, i32 count) { return a >> (count & 31); }
};
// BOOL holds 0 or 1, so the bitwise operators are the logical ones; AND's identity is all ones
// for INT and T (1) for BOOL.
struct Not {
  CVL_HD static i32 apply(i32 a) { return ~a; }
  CVL_HD static b8 apply(b8 a) { return (b8)(a == 0); }
};
struct And {
  CVL_HD static i32 apply(i32 a, i32 b) { return a & b; }
  CVL_HD static b8 apply(b8 a, b8 b) { return (b8)(a & b); }
  CVL_HD static constexpr i32 identity(i32) { return -1; }
  CVL_HD static constexpr b8 identity(b8) { return 1; }
};
struct Or {
  CVL_HD static i32 apply(i32 a, i32 b) { return a | b; }
  CVL_HD static b8 apply(b8 a, b8 b) { return (b8)(a | b); }
  CVL_HD static constexpr i32 identity(i32) { return 0; }
  CVL_HD static constexpr b8 identity(b8) { return 0; }
};
struct Xor {
  CVL_HD static i32 apply(i32 a, i32 b) { return a ^ b; }
  CVL_HD static b8 apply(b8 a, b8 b) { return (b8)(a ^ b); }
  CVL_HD static constexpr i32 identity(i32) { return 0; }
  CVL_HD static constexpr b8 identity(b8) { return 0; }
};
struct Select {  // f ? a : b, on any element type
  template <class T>
  CVL_HD static T apply(b8 f, T a, T b) { return f ? a : b; }
};

// ---- conversions: cvttsd2si gives INT_MIN for NaN and for values that do not fit -------------
struct Trunc {
  CVL_HD static i32 apply(f64 x) {
    return (x > -2147483649.0 && x < 2147483648.0) ? (i32)x : CVL_INT_MIN;
  }
};
// (int)floor(x) and (int)ceil(x) without a libm call: the truncation corrected by one where it
// went the wrong way. floor(x) fits when -2^31 <= x < 2^31, ceil(x) when -2^31-1 < x <= 2^31-1.
struct Floor {
  CVL_HD static i32 apply(f64 x) {
    if (!(x >= -2147483648.0 && x < 2147483648.0)) return CVL_INT_MIN;
    i32 t = (i32)x;
    return t - ((f64)t > x ? 1 : 0);
  }
};
struct Ceil {
  CVL_HD static i32 apply(f64 x) {
    if (!(x > -2147483649.0 && x <= 2147483647.0)) return CVL_INT_MIN;
    i32 t = (i32)x;
    return t + ((f64)t < x ? 1 : 0);
  }
};
struct Round {  // (int)(x + 0.5): the addition rounds first, then truncation toward zero
  CVL_HD static i32 apply(f64 x) { return Trunc::apply(x + 0.5); }
};
struct IntToFloat {
  CVL_HD static f64 apply(i32 x) { return (f64)x; }
};
struct IntToBool {
  CVL_HD static b8 apply(i32 x) { return (b8)(x != 0); }
};
struct BoolToInt {
  CVL_HD static i32 apply(b8 x) { return (i32)x; }
};

// ---- transcendentals: the full-precision library functions (never the fast intrinsics) ------
// A NaN made from a number (LOG -1.0, ASIN 2.0, SIN inf) is the x86 default NaN, sign bit set
// and no payload, as the classic's libm returns it: FLOAT RANK orders NaNs by their bits, and
// libraries differ there (a newer glibc's asin and acos give +nan; SLEEF and CUDA have payloads
// of their own). A NaN operand passes through as the library returns it.
CVL_HD f64 libm_result(f64 x, f64 r) { return r != r && x == x ? ::copysign(::nan(""), -1.0) : r; }
#define CVL_LIBM(Name, fn) \
  struct Name {            \
    CVL_HD static f64 apply(f64 x) { return libm_result(x, ::fn(x)); } \
  };
CVL_LIBM(Log, log)
CVL_LIBM(Sqrt, sqrt)
CVL_LIBM(Exp, exp)
CVL_LIBM(Sin, sin)
CVL_LIBM(Cos, cos)
CVL_LIBM(Tan, tan)
CVL_LIBM(Asin, asin)
CVL_LIBM(Acos, acos)
CVL_LIBM(Atan, atan)
CVL_LIBM(Sinh, sinh)
CVL_LIBM(Cosh, cosh)
CVL_LIBM(Tanh, tanh)
#undef CVL_LIBM

// ---- the combiners that are not elementwise ops: MAX and MIN scans and reductions ------------
// Applied as apply(running, element) from the identity, left to right, with the comparison as
// written: with a NaN the result depends on the order (max(s, NaN) = NaN, max(NaN, x) = x), so
// FLOAT MAX/MIN may only be regrouped NaN-aware (`order_matters_with_nan`).
struct Max {
  static constexpr bool order_matters_with_nan = true;
  CVL_HD static i32 apply(i32 s, i32 x) { return s > x ? s : x; }
  CVL_HD static f64 apply(f64 s, f64 x) { return s > x ? s : x; }
  CVL_HD static constexpr i32 identity(i32) { return CVL_INT_MIN; }
  CVL_HD static constexpr f64 identity(f64) { return -CVL_FLOAT_HUGE; }
};
struct Min {
  static constexpr bool order_matters_with_nan = true;
  CVL_HD static i32 apply(i32 s, i32 x) { return s < x ? s : x; }
  CVL_HD static f64 apply(f64 s, f64 x) { return s < x ? s : x; }
  CVL_HD static constexpr i32 identity(i32) { return CVL_INT_MAX; }
  CVL_HD static constexpr f64 identity(f64) { return CVL_FLOAT_HUGE; }
};

// ---- INDEX: element j of a segment is start + j * stride, modulo 2^32 ------------------------
// (the reference's repeated wrapping addition). Only j mod 2^32 matters, so callers pass it as a
// 32-bit position, which keeps the multiply in vector lanes.
CVL_HD i32 index_value(i32 start, i32 stride, u32 position) {
  return (i32)((u32)start + position * (u32)stride);
}

// ---- RANK sort keys: unsigned keys whose order is the element order ---------------------------
CVL_HD u64 double_bits(f64 x) {
#if defined(__CUDA_ARCH__)
  return (u64)__double_as_longlong(x);
#else
  u64 bits;
  __builtin_memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}
// INT: signed order is the unsigned order of x XOR 0x80000000.
CVL_HD u32 int_rank_key(i32 x) { return (u32)x ^ 0x80000000u; }
// FLOAT, IEEE total order: negative patterns inverted, non-negative ones with the sign bit set.
CVL_HD u64 float_rank_key(f64 x) {
  u64 bits = double_bits(x);
  return (bits >> 63) ? ~bits : bits | (1ull << 63);
}
// FLOAT, the x86-64 reference's order (spec/CVL.md §6.3): sort by (k2, k1), where s is bit 31 of
// the low word, k1 = s ? ~H : H and k2 = s ? ~L : L ^ 0x80000000.
CVL_HD u64 legacy_float_rank_key(f64 x) {
  u64 bits = double_bits(x);
  u32 high = (u32)(bits >> 32), low = (u32)bits;
  bool s = (low >> 31) != 0;
  u32 k1 = s ? ~high : high;
  u32 k2 = s ? ~low : low ^ 0x80000000u;
  return ((u64)k2 << 32) | k1;
}

}  // namespace cvl_sem

#endif  // CVL_SCALAR_SEMANTICS_HPP
