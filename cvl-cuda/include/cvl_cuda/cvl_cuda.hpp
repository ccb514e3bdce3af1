// The CUDA vector library: factories for the real GPU backend ("cuda") and for its host
// emulation ("cuda-emulated", the same sources over Thrust's CPP system, for machines without a
// GPU). Each exists only when the build made it (NESL_HAVE_CUDA / NESL_HAVE_CUDA_EMULATION).
#pragma once

#include <memory>

#include "cvl/backend.hpp"

namespace cvl {

// Throws cvl::DeviceError("no CUDA device: ...") where the machine has no usable GPU.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options);

std::unique_ptr<Backend> make_cuda_emulated_backend(const BackendOptions& options);

}  // namespace cvl
