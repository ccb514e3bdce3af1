// PACK's compaction with AVX-512 (VPCOMPRESSD/Q) or AVX2 (a lane permute), where the CPU has
// them: the flagged elements of a block moved to the front, 4 to 16 at a time, instead of one
// store per element.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cvl::cpu::simd {

// A function copying the elements of in[0, n) whose flag is non-zero to out[0...] in order and
// returning how many; it stores nothing past them (masked stores), so blocks of one PACK can run
// side by side.
template <class Bits>
using CompactFunction = std::size_t (*)(const Bits* in, const std::uint8_t* flags, std::size_t n,
                                        Bits* out);

// In an unnamed namespace: the AVX-512 file calls it for its tails, and that copy, compiled for
// AVX-512, must never be the one the linker keeps for every caller.
namespace {
// The portable version, for any element type: branch-free, every element is stored and the
// cursor advances over flagged ones only; it stops at the last flagged element so that no store
// lands beyond the kept ones.
template <class Bits>
std::size_t compact_portable(const Bits* in, const std::uint8_t* flags, std::size_t n, Bits* out) {
  while (n > 0 && !flags[n - 1]) --n;
  std::size_t cursor = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out[cursor] = in[i];
    cursor += flags[i];
  }
  return cursor;
}
}  // namespace

// The widest version for elements of 4 or 8 bytes: AVX-512's on a CPU with AVX-512 F, BW and VL,
// else AVX2's on a CPU with AVX2; nullptr otherwise (and in builds for other processors).
CompactFunction<std::uint32_t> compact32();
CompactFunction<std::uint64_t> compact64();
// The AVX2 versions alone where the CPU has AVX2 (the tests check them on AVX-512 CPUs too).
CompactFunction<std::uint32_t> compact32_avx2();
CompactFunction<std::uint64_t> compact64_avx2();

}  // namespace cvl::cpu::simd
