// NVRTC compilation of FCODE superoperator kernels (cvl_cuda/superop_cuda.hpp), as the "cuda"
// backend does at first use: exposed so that CI, without a GPU, can check the generated source
// compiles. Only in builds with the real CUDA library (NESL_HAVE_CUDA).
#pragma once

#include <string>

namespace cvl {

// A cubin for sm_<arch> (e.g. 90) of the CUDA source `source`, compiled with --fmad=false;
// throws cvl::DeviceError with NVRTC's log when it does not compile.
std::string compile_cuda_to_cubin(const std::string& source, int arch);

}  // namespace cvl
