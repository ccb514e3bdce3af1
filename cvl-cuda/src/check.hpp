// Checks the status of every CUDA runtime call: a failure becomes a cvl::DeviceError naming the
// call's file, line and the error's name (the emulation has no runtime calls to check). A Thrust
// call's failure becomes one too.
#pragma once

#include <thrust/system_error.h>

#include <string>

#include "cvl/types.hpp"
#include "platform.hpp"

namespace cvl::CVL_CUDA_NS {

// Runs call(); a thrust::system_error from it (a kernel or an allocation inside the library
// failed) is a cvl::DeviceError, like a failed runtime call, not an internal error.
template <class Call>
void thrust_checked(Call&& call) {
  try {
    call();
  } catch (const thrust::system_error& e) {
    throw DeviceError(std::string("Thrust error: ") + e.what());
  }
}

}  // namespace cvl::CVL_CUDA_NS

#if CVL_CUDA_REAL
namespace cvl::CVL_CUDA_NS {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw DeviceError(std::string("CUDA error ") + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ") in " + call + " at " + file + ":" +
                    std::to_string(line));
}

}  // namespace cvl::CVL_CUDA_NS

#define CVL_CUDA_CHECK(call)                                                        \
  do {                                                                              \
    cudaError_t cvl_status_ = (call);                                               \
    if (cvl_status_ != cudaSuccess)                                                 \
      ::cvl::CVL_CUDA_NS::throw_cuda_error(cvl_status_, #call, __FILE__, __LINE__); \
  } while (0)
#endif
