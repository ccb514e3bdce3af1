// cvl-cpu's fast mode for the transcendental functions (ops.def Cost Compute, SQRT aside):
// SLEEF's vectorized functions with at most 1 ulp of error, on the widest vectors the CPU has.
// The exact mode (the default of BackendOptions, `vinterp --threads 1`) keeps the C library's
// scalar functions, so that results match the classic interpreter bit for bit.
#pragma once

#include "sleef/array_functions.hpp"
#include "vcode/op.hpp"

namespace cvl::cpu {

// out[i] = f(in[i]) for i < n over the whole array (in == out allowed), for the fast mode of
// elementwise `op`; nullptr when `op` is not such a function or this build has no SLEEF.
ArrayFunction fast_math_function(vcode::Op op);

// What the fast mode runs on this machine ("SLEEF, AVX-512", ..., or why it runs the C
// library's functions), for --version and the tests.
const char* fast_math_description();

}  // namespace cvl::cpu
