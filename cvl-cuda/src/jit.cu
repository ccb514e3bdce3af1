// NVRTC compilation, the on-disk cubin cache and launches of generated superoperator kernels
// (jit.hpp). The emulation has no NVRTC: this file is empty there.
#include "jit.hpp"

#if CVL_CUDA_REAL
#include <cstdio>
#include <optional>

#include "cvl_cuda/cubin_cache.hpp"
#include "cvl_cuda/superop_compiler.hpp"
#include "nvrtc_library.hpp"
#include "tuning.hpp"
#include "cvl_cuda/superop_cuda.hpp"

namespace cvl {

std::string compile_cuda_to_cubin(const std::string& source, int arch) {
  const nvrtc::Api& api = nvrtc::library();
  nvrtcProgram program;
  if (api.create_program(&program, source.c_str(), "nesl_superops.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS)
    throw DeviceError("NVRTC: cannot create a program");
  const std::string arch_option = "--gpu-architecture=sm_" + std::to_string(arch);
  const char* options[] = {arch_option.c_str(), "--fmad=false", "--std=c++17"};
  nvrtcResult status = api.compile_program(program, 3, options);
  if (status != NVRTC_SUCCESS) {
    std::size_t size = 0;
    api.get_program_log_size(program, &size);
    std::string log(size, '\0');
    api.get_program_log(program, log.data());
    api.destroy_program(&program);
    throw DeviceError(std::string("NVRTC: ") + api.get_error_string(status) + "\n" + log);
  }
  std::size_t size = 0;
  api.get_cubin_size(program, &size);
  std::string cubin(size, '\0');
  api.get_cubin(program, cubin.data());
  api.destroy_program(&program);
  return cubin;
}

}  // namespace cvl

namespace cvl::CVL_CUDA_NS::jit {
namespace {

// The text NVRTC compiles for `source` on sm_<arch>, which is also its cache key: the
// architecture and NVRTC's version are part of it, so a cubin is never reused across either.
std::string cache_key(const std::string& source, int arch) {
  int major = 0, minor = 0;
  nvrtc::library().version(&major, &minor);
  return source + "\n// sm_" + std::to_string(arch) + " nvrtc " + std::to_string(major) + "." +
         std::to_string(minor);
}

// The on-disk cache (cubin_cache.hpp), opened at first use; off when its directory is unusable.
cubin_cache::CubinCache& disk_cache() {
  static cubin_cache::CubinCache cache(cubin_cache::default_directory());
  return cache;
}

}  // namespace

KernelCache::KernelCache(int device) {
  int major = 0, minor = 0;
  CVL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CVL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  arch_ = major * 10 + minor;
}

cudaKernel_t KernelCache::kernel_for(const vcode::SuperOp& op) {
  std::string source;
  try {
    source = vcode::cuda_prelude() + vcode::cuda_source(op);
  } catch (const std::exception&) {
    return nullptr;  // a definition the generator does not take: the interpreter runs it
  }
  if (auto found = kernels_.find(source); found != kernels_.end()) return found->second;
  if (nvrtc_unavailable_) return nullptr;
  std::string key;
  try {
    key = cache_key(source, arch_);
  } catch (const nvrtc::Unavailable& e) {
    // Said once: every superoperator then runs on the interpreter kernel.
    std::fprintf(stderr, "cvl-cuda: FUSED uses the interpreter kernel: %s\n", e.what());
    nvrtc_unavailable_ = true;
    return nullptr;
  }
  cubin_cache::CubinCache& disk = disk_cache();
  // A cached cubin that does not load (damaged, or from an incompatible driver) is removed and
  // compiled afresh; it never disables anything.
  if (std::optional<std::string> cached = disk.lookup(key)) {
    try {
      cudaKernel_t kernel = load(*cached, op);
      kernels_.emplace(std::move(source), kernel);
      return kernel;
    } catch (const DeviceError&) {
      (void)cudaGetLastError();
      disk.remove(key);
    }
  }
  try {
    const std::string cubin = compile_cuda_to_cubin(key, arch_);
    cudaKernel_t kernel = load(cubin, op);
    disk.store(key, cubin);  // only a cubin that loaded
    kernels_.emplace(std::move(source), kernel);
    return kernel;
  } catch (const DeviceError& e) {
    // A failed runtime call stays the thread's last error: clear it, or the next launch's
    // cudaGetLastError check (and Thrust's) would report it as its own failure.
    (void)cudaGetLastError();
    std::fprintf(stderr, "cvl-cuda: FUSED falls back to the interpreter kernel: %s\n", e.what());
    kernels_.emplace(std::move(source), nullptr);  // this kernel only: not tried again
    return nullptr;
  }
}

cudaKernel_t KernelCache::load(const std::string& cubin, const vcode::SuperOp& op) {
  cudaLibrary_t library;
  CVL_CUDA_CHECK(
      cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel;
  const cudaError_t status =
      cudaLibraryGetKernel(&kernel, library, vcode::cuda_kernel_name(op).c_str());
  if (status != cudaSuccess) {
    (void)cudaLibraryUnload(library);
    throw_cuda_error(status, "cudaLibraryGetKernel", __FILE__, __LINE__);
  }
  libraries_.push_back(library);
  return kernel;
}

bool KernelCache::available(CompiledKernel& compiled, const vcode::SuperOp& op) {
  if (!compiled.looked_up) {
    compiled.kernel = kernel_for(op);
    compiled.looked_up = true;
  }
  return compiled.kernel != nullptr;
}

bool KernelCache::run(Device& device, CompiledKernel& compiled, const vcode::SuperOp& op,
                      const std::vector<fused::OperandView>& views, std::size_t first,
                      Extent domain, void* out, unsigned long long* fault, Traffic traffic) {
  if (!available(compiled, op)) return false;
  cudaKernel_t kernel = compiled.kernel;
  if (domain.bound <= first) return true;
  // Parameters in the ABI's order (cvl_cuda/superop_cuda.hpp); each value lives in `slots`.
  // A SEGDES operand is its SegmentView (cvl_sem::SegmentView, the same type the kernel declares)
  // by value; everything else one 8-byte slot.
  std::vector<std::uint64_t> slots;
  slots.reserve(views.size() + 5);  // never reallocated: args point into it
  std::vector<void*> args;
  auto push = [&](std::uint64_t value) {
    slots.push_back(value);
    args.push_back(&slots.back());
  };
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    const fused::OperandView& v = views[k];
    if (op.operands[k] == vcode::TypeKeyword::Segdes)
      args.push_back(const_cast<SegmentView*>(&v.segdes));
    else
      push(reinterpret_cast<std::uintptr_t>(v.data));
  }
  push(static_cast<std::uint64_t>(first));
  push(static_cast<std::uint64_t>(domain.bound));
  push(reinterpret_cast<std::uintptr_t>(domain.count));
  push(reinterpret_cast<std::uintptr_t>(out));
  push(reinterpret_cast<std::uintptr_t>(fault));
  std::size_t blocks =
      (domain.bound - first + cuda_tuning::kBlockSize - 1) / cuda_tuning::kBlockSize;
  if (blocks > cuda_tuning::kMaxBlocks) blocks = cuda_tuning::kMaxBlocks;
  device.count_library_call(traffic.over(domain.bound - first));
  CVL_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                                  dim3(static_cast<unsigned>(blocks)),
                                  dim3(cuda_tuning::kBlockSize), args.data(), 0, device.stream()));
  return true;
}

}  // namespace cvl::CVL_CUDA_NS::jit
#endif
