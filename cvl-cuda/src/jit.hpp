// Per-superoperator kernels for FUSED on the GPU: vcode's CUDA source of a superoperator is
// compiled by NVRTC on first use, for the device's architecture, and the cubin is kept in an
// on-disk cache (cvl_cuda/cubin_cache.hpp: $XDG_CACHE_HOME/nesl-vinterp, or
// ~/.cache/nesl-vinterp), so a program's second run compiles nothing; each prepared superoperator
// keeps its kernel, so later calls neither regenerate nor look up anything. A cached cubin that
// fails to load is dropped from the cache and compiled afresh; when a fresh compile or load fails,
// that superoperator falls back to the interpreter kernel (fused.hpp); where NVRTC cannot be
// loaded (nvrtc_library.hpp), every one does. Real build only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "device.hpp"
#include "fused.hpp"
#include "vcode/superop.hpp"

#if CVL_CUDA_REAL
namespace cvl::CVL_CUDA_NS::jit {

// One prepared superoperator's kernel: looked up (generated, compiled or read from the cache,
// loaded) at its first device call, then reused by every later call.
struct CompiledKernel {
  bool looked_up = false;
  cudaKernel_t kernel = nullptr;  // null: none could be made; the interpreter runs it
};

class KernelCache {
 public:
  explicit KernelCache(int device);
  // Whether `op` has a compiled kernel, looking it up into `compiled` the first time.
  bool available(CompiledKernel& compiled, const vcode::SuperOp& op);
  // Runs superoperator `op`'s kernel over elements first..domain.items()-1 (writing its root
  // value, or its root's input for a scan or reduce root, element j into out[j - first]),
  // looking it up into `compiled` first if that was not done yet; false when no compiled kernel
  // is available. `traffic` is what the body reads and writes per element (fused::body_traffic).
  bool run(Device& device, CompiledKernel& compiled, const vcode::SuperOp& op,
           const std::vector<fused::OperandView>& views, std::size_t first, Extent domain,
           void* out, unsigned long long* fault, Traffic traffic);

 private:
  cudaKernel_t kernel_for(const vcode::SuperOp& op);
  // Loads `cubin` and finds `op`'s kernel in it; DeviceError when either fails.
  cudaKernel_t load(const std::string& cubin, const vcode::SuperOp& op);

  int arch_ = 0;
  // By source text; null for a superoperator whose fresh compile or load failed (not retried).
  std::map<std::string, cudaKernel_t> kernels_;
  std::vector<cudaLibrary_t> libraries_;
  bool nvrtc_unavailable_ = false;  // NVRTC did not load (nvrtc_library.hpp): compile nothing
};

}  // namespace cvl::CVL_CUDA_NS::jit
#endif
