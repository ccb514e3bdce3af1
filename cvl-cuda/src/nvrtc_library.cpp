// NVRTC loaded at first use (nvrtc_library.hpp).
#include "nvrtc_library.hpp"

#include <dlfcn.h>

#include <mutex>
#include <optional>

namespace cvl::nvrtc {
namespace {

// Resolves `name` in `handle` into `function`; false when it is missing.
template <class Function>
bool resolve(void* handle, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(handle, name));
  return function != nullptr;
}

}  // namespace

Api load(const std::vector<std::string>& candidates) {
  std::string reasons;
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      reasons += "\n  " + candidate + ": " + (why != nullptr ? why : "cannot be opened");
      continue;
    }
    Api api{};
    if (resolve(handle, "nvrtcCreateProgram", api.create_program) &&
        resolve(handle, "nvrtcCompileProgram", api.compile_program) &&
        resolve(handle, "nvrtcGetProgramLogSize", api.get_program_log_size) &&
        resolve(handle, "nvrtcGetProgramLog", api.get_program_log) &&
        resolve(handle, "nvrtcGetCUBINSize", api.get_cubin_size) &&
        resolve(handle, "nvrtcGetCUBIN", api.get_cubin) &&
        resolve(handle, "nvrtcDestroyProgram", api.destroy_program) &&
        resolve(handle, "nvrtcGetErrorString", api.get_error_string) &&
        resolve(handle, "nvrtcVersion", api.version))
      return api;  // the library stays loaded for the rest of the process
    reasons += "\n  " + candidate + ": not NVRTC (a call is missing)";
    dlclose(handle);
  }
  throw Unavailable("NVRTC cannot be loaded, so FUSED kernels cannot be compiled:" + reasons);
}

const Api& library() {
  static std::once_flag once;
  static std::optional<Api> api;
  static std::string failure;
  std::call_once(once, [] {
    try {
      api = load({NESL_NVRTC_SONAME, NESL_NVRTC_BUILD_PATH});
    } catch (const Unavailable& e) {
      failure = e.what();
    }
  });
  if (!api) throw Unavailable(failure);
  return *api;
}

}  // namespace cvl::nvrtc
