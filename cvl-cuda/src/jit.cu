// NVRTC compilation, the on-disk cubin cache and launches of generated superoperator kernels
// (jit.hpp). The emulation has no NVRTC: this file is empty there.
#include "jit.hpp"

#if CVL_CUDA_REAL
#include <nvrtc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cvl_cuda/superop_compiler.hpp"
#include "tuning.hpp"
#include "vcode/superop_cuda.hpp"

namespace cvl {

std::string compile_cuda_to_cubin(const std::string& source, int arch) {
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source.c_str(), "nesl_superops.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS)
    throw DeviceError("NVRTC: cannot create a program");
  const std::string arch_option = "--gpu-architecture=sm_" + std::to_string(arch);
  const char* options[] = {arch_option.c_str(), "--fmad=false", "--std=c++17"};
  nvrtcResult status = nvrtcCompileProgram(program, 3, options);
  if (status != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    nvrtcDestroyProgram(&program);
    throw DeviceError(std::string("NVRTC: ") + nvrtcGetErrorString(status) + "\n" + log);
  }
  std::size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  std::string cubin(size, '\0');
  nvrtcGetCUBIN(program, cubin.data());
  nvrtcDestroyProgram(&program);
  return cubin;
}

}  // namespace cvl

namespace cvl::CVL_CUDA_NS::jit {
namespace {

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::filesystem::path cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "nesl-vinterp";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "nesl-vinterp";
  return {};
}

// The cubin of `source` for sm_<arch>: from the cache, or compiled and then cached (written to a
// temporary name and renamed, so concurrent runs never read half a file).
std::string cubin_for(const std::string& source, int arch) {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  const std::string key = source + "\n// sm_" + std::to_string(arch) + " nvrtc " +
                          std::to_string(major) + "." + std::to_string(minor);
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(fnv1a(key)));
  const std::filesystem::path dir = cache_directory();
  std::error_code ignored;
  if (!dir.empty()) {
    std::ifstream in(dir / name, std::ios::binary);
    if (in) return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string cubin = compile_cuda_to_cubin(key, arch);
  if (!dir.empty()) {
    std::filesystem::create_directories(dir, ignored);
    const auto temporary = dir / (std::string(name) + ".tmp" + std::to_string(::getpid()));
    std::ofstream file(temporary, std::ios::binary);
    file.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    file.close();
    // A short write (disk full) must not become the cached cubin of every later run.
    if (file)
      std::filesystem::rename(temporary, dir / name, ignored);
    else
      std::filesystem::remove(temporary, ignored);
  }
  return cubin;
}

}  // namespace

KernelCache::KernelCache(int device) {
  int major = 0, minor = 0;
  CVL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CVL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  arch_ = major * 10 + minor;
}

cudaKernel_t KernelCache::kernel_for(const vcode::SuperOp& op) {
  if (broken_) return nullptr;
  std::string source;
  try {
    source = vcode::cuda_prelude() + vcode::cuda_source(op);
  } catch (const std::exception&) {
    return nullptr;  // a definition the generator does not take: the interpreter runs it
  }
  if (auto found = kernels_.find(source); found != kernels_.end()) return found->second;
  try {
    const std::string cubin = cubin_for(source, arch_);
    cudaLibrary_t library;
    CVL_CUDA_CHECK(
        cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    libraries_.push_back(library);
    cudaKernel_t kernel;
    CVL_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, vcode::cuda_kernel_name(op).c_str()));
    kernels_.emplace(std::move(source), kernel);
    return kernel;
  } catch (const DeviceError& e) {
    // A failed runtime call stays the thread's last error: clear it, or the next launch's
    // cudaGetLastError check (and Thrust's) would report it as its own failure.
    (void)cudaGetLastError();
    std::fprintf(stderr, "cvl-cuda: FUSED falls back to the interpreter kernel: %s\n", e.what());
    broken_ = true;
    return nullptr;
  }
}

bool KernelCache::available(CompiledKernel& compiled, const vcode::SuperOp& op) {
  if (!compiled.looked_up) {
    compiled.kernel = kernel_for(op);
    compiled.looked_up = true;
  }
  return compiled.kernel != nullptr;
}

bool KernelCache::run(Device& device, CompiledKernel& compiled, const vcode::SuperOp& op,
                      const std::vector<fused::OperandView>& views, std::size_t domain, void* out,
                      unsigned long long* fault) {
  if (!available(compiled, op)) return false;
  cudaKernel_t kernel = compiled.kernel;
  if (domain == 0) return true;
  // Parameters in the ABI's order (vcode/superop_cuda.hpp); each value lives in `slots`.
  // A SEGDES operand is its SegMap (cvl_sem::SegmentView, the same type the kernel declares)
  // by value; everything else one 8-byte slot.
  std::vector<std::uint64_t> slots;
  slots.reserve(views.size() + 3);
  std::vector<void*> args;
  auto push = [&](std::uint64_t value) {
    slots.push_back(value);
    args.push_back(&slots.back());
  };
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    const fused::OperandView& v = views[k];
    if (op.operands[k] == vcode::TypeKeyword::Segdes)
      args.push_back(const_cast<SegMap*>(&v.segdes));
    else
      push(reinterpret_cast<std::uintptr_t>(v.data));
  }
  push(static_cast<std::uint64_t>(domain));
  push(reinterpret_cast<std::uintptr_t>(out));
  push(reinterpret_cast<std::uintptr_t>(fault));
  std::size_t blocks = (domain + cuda_tuning::kBlockSize - 1) / cuda_tuning::kBlockSize;
  if (blocks > cuda_tuning::kMaxBlocks) blocks = cuda_tuning::kMaxBlocks;
  device.count_library_call();
  CVL_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                                  dim3(static_cast<unsigned>(blocks)),
                                  dim3(cuda_tuning::kBlockSize), args.data(), 0, device.stream()));
  return true;
}

}  // namespace cvl::CVL_CUDA_NS::jit
#endif
