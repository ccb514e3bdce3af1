// SLEEF's 4-lane AVX2 + FMA functions (1 ulp) over arrays; compiled with -mavx2 -mfma.
#include <immintrin.h>
#include <sleef.h>

#include <cfloat>
#include <cmath>

#include "array_functions.hpp"

namespace cvl::cpu::sleef {
namespace {

struct Lanes {
  using V = __m256d;
  static constexpr std::size_t width = 4;
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
};

#include "array_loop.hpp"

constexpr ArrayFunction table[] = CVL_SLEEF_TABLE(Lanes, d4_u10avx2);
static_assert(sizeof table / sizeof table[0] == static_cast<int>(Transcendental::Count));

}  // namespace

const ArrayFunction* avx2_functions() { return table; }

}  // namespace cvl::cpu::sleef
