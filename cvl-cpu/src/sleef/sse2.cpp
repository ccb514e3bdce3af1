// SLEEF's 2-lane functions (1 ulp) over arrays, for every x86-64 CPU: SLEEF's own dispatcher
// picks its SSE2, SSE4.1 or AVX2 (128-bit) version.
#include <immintrin.h>
#include <sleef.h>

#include <cfloat>
#include <cmath>

#include "array_functions.hpp"

namespace cvl::cpu::sleef {
namespace {

struct Lanes {
  using V = __m128d;
  static constexpr std::size_t width = 2;
  static V load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, V v) { _mm_storeu_pd(p, v); }
};

#include "array_loop.hpp"

constexpr ArrayFunction table[] = CVL_SLEEF_TABLE(Lanes, d2_u10);
static_assert(sizeof table / sizeof table[0] == static_cast<int>(Transcendental::Count));

}  // namespace

const ArrayFunction* sse2_functions() { return table; }

}  // namespace cvl::cpu::sleef
