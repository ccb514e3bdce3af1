// PACK's compaction for AVX-512 F, BW and VL (simd/compact.hpp); compiled for them and called
// only on CPUs that have them. The compress goes to a register and a masked store
// writes it: VPCOMPRESS to memory is microcoded and slow on AMD's cores.
#include <immintrin.h>

#include <cstdint>

#include "compact.hpp"

namespace cvl::cpu::simd::avx512 {

std::size_t compact32(const std::uint32_t* in, const std::uint8_t* flags, std::size_t n,
                      std::uint32_t* out) {
  std::size_t cursor = 0, i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i f = _mm_loadu_si128(reinterpret_cast<const __m128i*>(flags + i));
    const __mmask16 keep = _mm_test_epi8_mask(f, f);
    const __m512i kept = _mm512_maskz_compress_epi32(keep, _mm512_loadu_si512(in + i));
    const unsigned count = static_cast<unsigned>(__builtin_popcount(keep));
    _mm512_mask_storeu_epi32(out + cursor, static_cast<__mmask16>((1u << count) - 1), kept);
    cursor += count;
  }
  return cursor + compact_portable(in + i, flags + i, n - i, out + cursor);
}

std::size_t compact64(const std::uint64_t* in, const std::uint8_t* flags, std::size_t n,
                      std::uint64_t* out) {
  std::size_t cursor = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t eight;
    __builtin_memcpy(&eight, flags + i, 8);
    const __m128i f = _mm_cvtsi64_si128(static_cast<long long>(eight));
    const auto keep = static_cast<__mmask8>(_mm_test_epi8_mask(f, f));
    const __m512i kept = _mm512_maskz_compress_epi64(keep, _mm512_loadu_si512(in + i));
    const unsigned count = static_cast<unsigned>(__builtin_popcount(keep));
    _mm512_mask_storeu_epi64(out + cursor, static_cast<__mmask8>((1u << count) - 1), kept);
    cursor += count;
  }
  return cursor + compact_portable(in + i, flags + i, n - i, out + cursor);
}

}  // namespace cvl::cpu::simd::avx512
