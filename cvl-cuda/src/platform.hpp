// What differs between the two builds of cvl-cuda: the real one (nvcc, CUDA runtime, Thrust's
// CUDA system) and the host emulation (g++, Thrust's CPP system, launches as loops). Everything
// else in src/ is written once against these few macros and functions.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CVL_CUDA_REAL 1
#define CVL_GLOBAL __global__
#include <cuda_runtime.h>
#else
#define CVL_CUDA_REAL 0
#define CVL_GLOBAL
#endif
// Functions both the host and kernels call: CVL_HD, as for the per-element rules.
#include "cvl/scalar_semantics.hpp"

// The two builds live side by side in one binary, so each gets its own namespace.
#if CVL_CUDA_REAL
#define CVL_CUDA_NS cuda_real
#else
#define CVL_CUDA_NS cuda_emulated
#endif

// CUB-only fast paths (direct cub:: calls); the emulation always takes the Thrust fallback.
#if CVL_CUDA_REAL && !defined(CVL_USE_CUB)
#define CVL_USE_CUB 1
#elif !defined(CVL_USE_CUB)
#define CVL_USE_CUB 0
#endif

namespace cvl::CVL_CUDA_NS {

// Records the smallest faulting position in a device fault word (the first fault in index order
// is the one cvl-cpu reports).
CVL_HD void record_fault(unsigned long long* word, std::uint64_t position) {
#if defined(__CUDA_ARCH__)
  atomicMin(word, static_cast<unsigned long long>(position));
#else
  // The emulation's launches are sequential loops; a host-side fault needs no atomics.
  if (position < *word) *word = position;
#endif
}

// Raises a scatter's claim on a destination position to `claim` (a source position plus one):
// after every claim, the highest source position that targets a position holds it.
CVL_HD void raise_claim(std::uint32_t* word, std::uint32_t claim) {
#if defined(__CUDA_ARCH__)
  atomicMax(word, claim);
#else
  if (claim > *word) *word = claim;
#endif
}

}  // namespace cvl::CVL_CUDA_NS
