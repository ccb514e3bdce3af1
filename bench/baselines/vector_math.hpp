// exp and log over arrays for the baselines: SLEEF's 1-ulp vector functions (Debian
// libsleef-dev) at the widest width the CPU runs (AVX-512, AVX2 or SSE2), or the C library's
// scalar functions in a build without SLEEF. The same choice as vinterp's fast mode.
#pragma once

#include <cstddef>

namespace baseline {

void exp_array(const double* in, double* out, std::size_t n);
void log_array(const double* in, double* out, std::size_t n);

// Which functions the two above use, e.g. "SLEEF 1-ulp, AVX2 (4 lanes)".
const char* vector_math_description();

}  // namespace baseline
