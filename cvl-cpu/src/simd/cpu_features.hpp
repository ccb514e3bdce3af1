// Which wide instruction sets this CPU runs, asked once: the simd/ files compiled for AVX-512 are
// called only where this says yes.
#pragma once

namespace cvl::cpu::simd {

// AVX-512 F, BW and VL (every AVX-512 CPU since Skylake-SP).
inline bool has_avx512_bw_vl() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
  }();
  return yes;
}

}  // namespace cvl::cpu::simd
