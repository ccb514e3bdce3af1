// The CPU vector library: the reference semantics of spec/CVL.md, vectorized and multithreaded.
#pragma once

#include <memory>

#include "cvl/backend.hpp"
#include "cvl/backend_option_group.hpp"

namespace cvl {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);

// What the fast mode (BackendOptions::fast_math) computes transcendental functions with on this
// machine: "SLEEF 1-ulp functions, AVX-512 (8 lanes)", or the C library's when built without SLEEF.
const char* cpu_fast_math_description();

// The command-line options of cvl-cpu (--math, --huge-pages, --eager), which every backend built
// on it takes: BackendOptions::fast_math (by default on unless one thread), lazy_elementwise (by
// default on), huge_pages.
extern const BackendOptionGroup cpu_option_group;

}  // namespace cvl
