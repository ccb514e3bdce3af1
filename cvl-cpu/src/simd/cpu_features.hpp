// Which wide instruction sets this CPU runs, asked once: the simd/ files compiled for AVX2 or
// AVX-512 are called only where this says yes.
#pragma once

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cvl::cpu::simd {

#if defined(__x86_64__)

// AVX2 with POPCNT (every x86-64 CPU since Haswell and Zen).
inline bool has_avx2() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  }();
  return yes;
}

// AVX-512 F, BW and VL (every AVX-512 CPU since Skylake-SP).
inline bool has_avx512_bw_vl() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
  }();
  return yes;
}

// Whether AVX-512's gather instructions beat scalar loads: measured so on an Intel CPU with
// AVX-512 FP16 (Sapphire Rapids and later, which Downfall's microcode fix does not slow), and
// not on AMD's Zen 4, where bh ran slower with them (bench/RESULTS.md).
inline bool has_fast_avx512_gathers() {
  static const bool yes = [] {
    __builtin_cpu_init();
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;  // AVX512-FP16: CPUID leaf 7, EDX bit 23
    const bool fp16 = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (edx >> 23 & 1) != 0;
    return has_avx512_bw_vl() && __builtin_cpu_is("intel") && fp16;
  }();
  return yes;
}
#else
inline bool has_avx2() { return false; }
inline bool has_avx512_bw_vl() { return false; }
inline bool has_fast_avx512_gathers() { return false; }
#endif

}  // namespace cvl::cpu::simd
