// NVRTC, opened with dlopen at the first FUSED kernel compile instead of linked. A linked
// libnvrtc adds to every vinterp process's resident memory from the start (the loader touches
// its relocated data), whichever backend runs, enough alone to put vinterp's peak above the
// classic interpreter's on bh and black-scholes (bench/RESULTS.md); and a machine without NVRTC
// still runs the cuda backend, FUSED through the interpreter kernel. Real build only (nvrtc.h).
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

#include "cvl/errors.hpp"

namespace cvl::nvrtc {

// The NVRTC calls jit.cu makes, resolved from one loaded library.
struct Api {
  decltype(&nvrtcCreateProgram) create_program;
  decltype(&nvrtcCompileProgram) compile_program;
  decltype(&nvrtcGetProgramLogSize) get_program_log_size;
  decltype(&nvrtcGetProgramLog) get_program_log;
  decltype(&nvrtcGetCUBINSize) get_cubin_size;
  decltype(&nvrtcGetCUBIN) get_cubin;
  decltype(&nvrtcDestroyProgram) destroy_program;
  decltype(&nvrtcGetErrorString) get_error_string;
  decltype(&nvrtcVersion) version;
};

// NVRTC could not be loaded: no FUSED kernel can be compiled in this process.
struct Unavailable : DeviceError {
  using DeviceError::DeviceError;
};

// The API from the first of `candidates` (file names or paths, as dlopen takes them) that loads
// and has every call; throws Unavailable naming each candidate and why it failed.
Api load(const std::vector<std::string>& candidates);

// The process's NVRTC: load() of the toolkit's library (its soname, found as the system and
// LD_LIBRARY_PATH say, then the path it had at build time), once; a failure is remembered and
// thrown again on every call.
const Api& library();

}  // namespace cvl::nvrtc
