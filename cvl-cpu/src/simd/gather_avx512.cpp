// simd/gather.hpp's gathers compiled for AVX-512 (F, BW, VL); called only on CPUs that have it.
// Positions are below 2^31 (a vector's length is), so the instructions' signed 32-bit indices
// read them right; a checked step gathers only once all of its indices are found in range.
#include <immintrin.h>

#include "gather.hpp"

namespace cvl::cpu::simd::avx512 {
namespace {

// The scalar loop, for tails and for a step holding a bad index (which it finds and reports).
template <class Bits>
std::size_t checked_scalar(const Bits* values, std::uint32_t length, const std::int32_t* idx,
                           Bits* out, std::size_t lo, std::size_t hi) {
  for (std::size_t j = lo; j < hi; ++j) {
    const auto at = static_cast<std::uint32_t>(idx[j]);
    if (at >= length) return j;
    out[j] = values[at];
  }
  return hi;
}

// The masked forms with a zero source: the unmasked intrinsics leave their source undefined,
// which GCC 12 warns of. (A function, not a constant: nothing compiled for AVX-512 may run
// while the program starts, on a CPU that may lack it.)
__m512i zero() { return _mm512_setzero_si512(); }
constexpr __mmask16 kAll16 = 0xFFFF;
constexpr __mmask8 kAll8 = 0xFF;

}  // namespace

void gather32(std::size_t n, const std::int32_t* positions, const std::uint32_t* values,
              std::uint32_t* out) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i at = _mm512_loadu_si512(positions + i);
    _mm512_storeu_si512(out + i, _mm512_mask_i32gather_epi32(zero(), kAll16, at, values, 4));
  }
  for (; i < n; ++i) out[i] = values[static_cast<std::uint32_t>(positions[i])];
}

void gather64(std::size_t n, const std::int32_t* positions, const std::uint64_t* values,
              std::uint64_t* out) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i at = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(positions + i));
    _mm512_storeu_si512(out + i, _mm512_mask_i32gather_epi64(zero(), kAll8, at, values, 8));
  }
  for (; i < n; ++i) out[i] = values[static_cast<std::uint32_t>(positions[i])];
}

std::size_t checked_gather32(const std::uint32_t* values, std::uint32_t length,
                             const std::int32_t* idx, std::uint32_t* out, std::size_t lo,
                             std::size_t hi) {
  const __m512i bound = _mm512_set1_epi32(static_cast<int>(length));
  std::size_t j = lo;
  for (; j + 16 <= hi; j += 16) {
    const __m512i at = _mm512_loadu_si512(idx + j);
    if (_mm512_cmpge_epu32_mask(at, bound) != 0) return checked_scalar(values, length, idx, out, j, hi);
    _mm512_storeu_si512(out + j, _mm512_mask_i32gather_epi32(zero(), kAll16, at, values, 4));
  }
  return checked_scalar(values, length, idx, out, j, hi);
}

std::size_t checked_gather64(const std::uint64_t* values, std::uint32_t length,
                             const std::int32_t* idx, std::uint64_t* out, std::size_t lo,
                             std::size_t hi) {
  const __m256i bound = _mm256_set1_epi32(static_cast<int>(length));
  std::size_t j = lo;
  for (; j + 8 <= hi; j += 8) {
    const __m256i at = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + j));
    if (_mm256_cmpge_epu32_mask(at, bound) != 0) return checked_scalar(values, length, idx, out, j, hi);
    _mm512_storeu_si512(out + j, _mm512_mask_i32gather_epi64(zero(), kAll8, at, values, 8));
  }
  return checked_scalar(values, length, idx, out, j, hi);
}

}  // namespace cvl::cpu::simd::avx512
