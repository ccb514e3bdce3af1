// The CPU vector library: the reference semantics of spec/CVL.md, vectorized and multithreaded.
#pragma once

#include <memory>

#include "cvl/backend.hpp"

namespace cvl {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);

// What the fast mode (BackendOptions::fast_math) computes transcendental functions with on this
// machine: "SLEEF 1-ulp functions, AVX-512 (8 lanes)", or the C library's when built without SLEEF.
const char* cpu_fast_math_description();

}  // namespace cvl
