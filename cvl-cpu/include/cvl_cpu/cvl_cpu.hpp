// The CPU vector library: the reference semantics of spec/CVL.md, vectorized and multithreaded.
#pragma once

#include <cstdint>
#include <memory>

#include "cvl/backend.hpp"
#include "cvl/backend_option_group.hpp"

namespace cvl {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);

// What the fast mode (BackendOptions::fast_math) computes transcendental functions with on this
// machine: "SLEEF 1-ulp functions, AVX-512 (8 lanes)", or the C library's when built without SLEEF.
const char* cpu_fast_math_description();

// cvl-mpi: `block`, a descriptor this library made, is one process's block of a descriptor of
// `total` elements. Past the longest vector, what is made over the block is streamed into the
// reductions that read it, as over a wide descriptor, and refused (vector_too_long_message of
// `total`) where it would be stored, though the block itself is shorter.
void mark_streamed_block(const Segdes& block, std::uint64_t total);

// cvl-mpi: REDUCE `op` of `v` by `sd` on `backend` (made by make_cpu_backend), which also tells
// whether the first segment held a NaN, for FLOAT MAX and MIN (false for the others), found in the
// same pass over the elements: the fold of a process's first piece continues the earlier ones'
// from it (cvl/nan_fold.hpp), and a block that waits to be streamed is never read twice.
Vector reduce_noting_first_nan(Backend& backend, vcode::Op op, Vector v, const Segdes& sd,
                               bool& first_held_nan);

// The command-line options of cvl-cpu (--math, --huge-pages, --eager), which every backend built
// on it takes: BackendOptions::fast_math (by default on unless one thread), lazy_elementwise (by
// default on), huge_pages.
extern const BackendOptionGroup cpu_option_group;

}  // namespace cvl
