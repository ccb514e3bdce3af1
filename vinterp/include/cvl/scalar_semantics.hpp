// The scalar meaning of every VCODE elementwise operation (spec/CVL.md §2), written once for the
// host compiler, nvcc device code and NVRTC: the CUDA kernels, the generated superoperator
// kernels (which embed this file as their prelude) and host evaluators share these functions, so
// integer, boolean and conversion results agree bit for bit on every backend.
//
// Self-contained on purpose: NVRTC compiles it without the C++ standard library, so it uses only
// builtin types and the CUDA math functions (the same names as C's libm). Device code must be
// compiled without fused multiply-add contraction (nvcc --fmad=false), as the x86-64 reference
// has none. INT division and remainder assume a non-zero divisor and no INT_MIN / -1: callers
// check those first (they are runtime errors).
#ifndef CVL_SCALAR_SEMANTICS_HPP
#define CVL_SCALAR_SEMANTICS_HPP

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CVL_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#define CVL_HD inline
#endif

namespace cvl_sem {

typedef int i32;
typedef unsigned int u32;
typedef double f64;
typedef unsigned char b8;  // BOOL: 0 or 1

// INT arithmetic wraps modulo 2^32: computed on unsigned, where overflow is defined.
CVL_HD i32 add_i(i32 a, i32 b) { return (i32)((u32)a + (u32)b); }
CVL_HD i32 sub_i(i32 a, i32 b) { return (i32)((u32)a - (u32)b); }
CVL_HD i32 mul_i(i32 a, i32 b) { return (i32)((u32)a * (u32)b); }
// Truncating division through double is exact for 32-bit operands and never traps.
CVL_HD i32 div_i(i32 a, i32 b) { return (i32)((f64)a / (f64)b); }
CVL_HD i32 mod_i(i32 a, i32 b) { return sub_i(a, mul_i(div_i(a, b), b)); }
CVL_HD bool divisor_traps(i32 a, i32 b) { return b == 0 || (a == (i32)0x80000000 && b == -1); }

CVL_HD f64 add_f(f64 a, f64 b) { return a + b; }
CVL_HD f64 sub_f(f64 a, f64 b) { return a - b; }
CVL_HD f64 mul_f(f64 a, f64 b) { return a * b; }
CVL_HD f64 div_f(f64 a, f64 b) { return a / b; }

// x86-64 takes the shift count modulo 32; RSHIFT is arithmetic.
CVL_HD i32 lshift(i32 a, i32 count) { return (i32)((u32)a << (count & 31)); }
CVL_HD i32 rshift(i32 a, i32 count) { return a >> (count & 31); }

CVL_HD i32 not_i(i32 a) { return ~a; }
CVL_HD b8 not_b(b8 a) { return (b8)(a == 0); }

// cvttsd2si: NaN, and values whose truncation does not fit in 32 bits, give INT_MIN.
CVL_HD i32 trunc_to_int(f64 x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? (i32)x : (i32)0x80000000;
}
// (int)floor(x) and (int)ceil(x) with the same out-of-range result, without a libm call.
CVL_HD i32 floor_to_int(f64 x) {
  if (!(x >= -2147483648.0 && x < 2147483648.0)) return (i32)0x80000000;
  i32 t = (i32)x;
  return t - ((f64)t > x ? 1 : 0);
}
CVL_HD i32 ceil_to_int(f64 x) {
  if (!(x > -2147483649.0 && x <= 2147483647.0)) return (i32)0x80000000;
  i32 t = (i32)x;
  return t + ((f64)t < x ? 1 : 0);
}
// (int)(x + 0.5): the addition rounds first, then truncation toward zero.
CVL_HD i32 round_to_int(f64 x) { return trunc_to_int(x + 0.5); }

CVL_HD f64 int_to_float(i32 x) { return (f64)x; }
CVL_HD b8 int_to_bool(i32 x) { return (b8)(x != 0); }
CVL_HD i32 bool_to_int(b8 x) { return (i32)x; }

// Transcendentals: the full-precision library functions (never the fast intrinsics).
CVL_HD f64 log_f(f64 x) { return ::log(x); }
CVL_HD f64 sqrt_f(f64 x) { return ::sqrt(x); }
CVL_HD f64 exp_f(f64 x) { return ::exp(x); }
CVL_HD f64 sin_f(f64 x) { return ::sin(x); }
CVL_HD f64 cos_f(f64 x) { return ::cos(x); }
CVL_HD f64 tan_f(f64 x) { return ::tan(x); }
CVL_HD f64 asin_f(f64 x) { return ::asin(x); }
CVL_HD f64 acos_f(f64 x) { return ::acos(x); }
CVL_HD f64 atan_f(f64 x) { return ::atan(x); }
CVL_HD f64 sinh_f(f64 x) { return ::sinh(x); }
CVL_HD f64 cosh_f(f64 x) { return ::cosh(x); }
CVL_HD f64 tanh_f(f64 x) { return ::tanh(x); }

// Scan and reduction combiners, applied as combine(running, element) from the identity, left to
// right. MAX/MIN use the comparison as written, so with a NaN the result depends on the order
// (max(s, NaN) = NaN, max(NaN, x) = x).
template <class T> CVL_HD T max_of(T s, T x) { return s > x ? s : x; }
template <class T> CVL_HD T min_of(T s, T x) { return s < x ? s : x; }

// The "infinities" of FLOAT MAX/MIN identities: (double)(float)1.0e36, not ±inf.
#define CVL_FLOAT_HUGE 9.999999616903162e+35
#define CVL_INT_MIN ((i32)0x80000000)
#define CVL_INT_MAX ((i32)0x7fffffff)

}  // namespace cvl_sem

#endif  // CVL_SCALAR_SEMANTICS_HPP
