#include "vector_math.hpp"

#include <cmath>

#if defined(BASELINE_HAVE_SLEEF)
#include <immintrin.h>
#include <sleef.h>

// sleef.h declares a width's functions only when the whole file is compiled for that instruction
// set; here only the functions below are, so declare them (they are in libsleef either way).
// Each carries its instruction set, as clang requires of a function taking wide vectors.
extern "C" {
__attribute__((target("avx512f"))) __m512d Sleef_expd8_u10avx512f(__m512d);
__attribute__((target("avx512f"))) __m512d Sleef_logd8_u10avx512f(__m512d);
__attribute__((target("avx2,fma"))) __m256d Sleef_expd4_u10avx2(__m256d);
__attribute__((target("avx2,fma"))) __m256d Sleef_logd4_u10avx2(__m256d);
}
#endif

namespace baseline {

namespace {

using ArrayFunction = void (*)(const double*, double*, std::size_t);

[[maybe_unused]] void exp_scalar(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}
[[maybe_unused]] void log_scalar(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log(in[i]);
}

#if defined(BASELINE_HAVE_SLEEF)
// One loop per instruction set: full vectors, then the tail padded into one more vector (padding
// with 1.0 keeps log away from its special cases).
#define BASELINE_ARRAY_FUNCTION(name, isa, lanes, loadu, storeu, sleef_function)  \
  __attribute__((target(isa))) void name(const double* in, double* out, std::size_t n) { \
    std::size_t i = 0;                                                                      \
    for (; i + lanes <= n; i += lanes) storeu(out + i, sleef_function(loadu(in + i)));      \
    if (i < n) {                                                                            \
      double buffer[lanes];                                                                 \
      for (std::size_t j = 0; j < lanes; ++j) buffer[j] = i + j < n ? in[i + j] : 1.0;      \
      storeu(buffer, sleef_function(loadu(buffer)));                                        \
      for (std::size_t j = 0; i + j < n; ++j) out[i + j] = buffer[j];                       \
    }                                                                                       \
  }
BASELINE_ARRAY_FUNCTION(exp_avx512, "avx512f", 8, _mm512_loadu_pd, _mm512_storeu_pd, Sleef_expd8_u10avx512f)
BASELINE_ARRAY_FUNCTION(log_avx512, "avx512f", 8, _mm512_loadu_pd, _mm512_storeu_pd, Sleef_logd8_u10avx512f)
BASELINE_ARRAY_FUNCTION(exp_avx2, "avx2,fma", 4, _mm256_loadu_pd, _mm256_storeu_pd, Sleef_expd4_u10avx2)
BASELINE_ARRAY_FUNCTION(log_avx2, "avx2,fma", 4, _mm256_loadu_pd, _mm256_storeu_pd, Sleef_logd4_u10avx2)
BASELINE_ARRAY_FUNCTION(exp_sse2, "sse2", 2, _mm_loadu_pd, _mm_storeu_pd, Sleef_expd2_u10sse2)
BASELINE_ARRAY_FUNCTION(log_sse2, "sse2", 2, _mm_loadu_pd, _mm_storeu_pd, Sleef_logd2_u10sse2)
#undef BASELINE_ARRAY_FUNCTION
#endif

struct Choice {
  ArrayFunction exp, log;
  const char* description;
};

Choice choose() {
#if defined(BASELINE_HAVE_SLEEF)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {exp_avx512, log_avx512, "SLEEF 1-ulp, AVX-512 (8 lanes)"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {exp_avx2, log_avx2, "SLEEF 1-ulp, AVX2 (4 lanes)"};
  return {exp_sse2, log_sse2, "SLEEF 1-ulp, SSE2 (2 lanes)"};
#else
  return {exp_scalar, log_scalar, "the C library's scalar functions (built without SLEEF)"};
#endif
}

const Choice& chosen() {
  static const Choice choice = choose();
  return choice;
}

}  // namespace

void exp_array(const double* in, double* out, std::size_t n) { chosen().exp(in, out, n); }
void log_array(const double* in, double* out, std::size_t n) { chosen().log(in, out, n); }
const char* vector_math_description() { return chosen().description; }

}  // namespace baseline
