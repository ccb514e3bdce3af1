// SLEEF's 8-lane AVX-512 functions (1 ulp) over arrays; compiled with -mavx512f.
#include <immintrin.h>
#include <sleef.h>

#include <cfloat>
#include <cmath>

#include "array_functions.hpp"

namespace cvl::cpu::sleef {
namespace {

struct Lanes {
  using V = __m512d;
  static constexpr std::size_t width = 8;
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
};

#include "array_loop.hpp"

constexpr ArrayFunction table[] = CVL_SLEEF_TABLE(Lanes, d8_u10avx512f);
static_assert(sizeof table / sizeof table[0] == static_cast<int>(Transcendental::Count));

}  // namespace

const ArrayFunction* avx512_functions() { return table; }

}  // namespace cvl::cpu::sleef
