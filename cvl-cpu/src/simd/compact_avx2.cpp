// PACK's compaction for AVX2 (simd/compact.hpp); compiled for AVX2 and POPCNT and called only on
// CPUs that have them. AVX2 has no compress: each group's kept lanes are moved to the front by a
// VPERMD whose lane order comes from a table indexed by the group's flags, and the whole vector
// is stored. Its unkept lanes land past the cursor, where the next store overwrites them; so that
// nothing is stored past the last kept element, the vector loop stops while a full store still
// fits in the kept count (counted first, a byte a flag), and the portable loop ends the run.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "compact.hpp"

namespace cvl::cpu::simd::avx2 {
namespace {

// For each set of kept lanes of a group (bit j: lane j is kept), the lanes to move to the front,
// in order, as bytes: lane indices for 8 elements of 4 bytes, or pairs of 4-byte halves for 4
// elements of 8 bytes.
constexpr std::array<std::uint64_t, 256> lane_orders(bool pairs) {
  std::array<std::uint64_t, 256> orders{};
  const unsigned lanes = pairs ? 4 : 8;
  for (unsigned keep = 0; keep < (1u << lanes); ++keep) {
    std::uint64_t order = 0;
    unsigned slot = 0;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      if ((keep >> lane & 1) == 0) continue;
      if (pairs) {
        order |= std::uint64_t{2 * lane} << (8 * slot++);
        order |= std::uint64_t{2 * lane + 1} << (8 * slot++);
      } else {
        order |= std::uint64_t{lane} << (8 * slot++);
      }
    }
    orders[keep] = order;
  }
  return orders;
}
constexpr std::array<std::uint64_t, 256> kLanes = lane_orders(false);
constexpr std::array<std::uint64_t, 256> kPairs = lane_orders(true);

std::size_t count_kept(const std::uint8_t* flags, std::size_t n) {
  __m256i sums = _mm256_setzero_si256();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i f = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(flags + i));
    // A flag is any non-zero byte: count each as 1.
    const __m256i one = _mm256_min_epu8(f, _mm256_set1_epi8(1));
    sums = _mm256_add_epi64(sums, _mm256_sad_epu8(one, _mm256_setzero_si256()));
  }
  std::uint64_t parts[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(parts), sums);
  std::size_t count = parts[0] + parts[1] + parts[2] + parts[3];
  for (; i < n; ++i) count += flags[i] != 0;
  return count;
}

// The kept lanes of the `lanes` flags at `flags`, one bit each.
unsigned kept_lanes(const std::uint8_t* flags, unsigned lanes) {
  std::uint64_t bytes = 0;
  std::memcpy(&bytes, flags, lanes);
  const __m128i f = _mm_cvtsi64_si128(static_cast<long long>(bytes));
  const auto zero = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(f, _mm_setzero_si128())));
  return ~zero & ((1u << lanes) - 1);
}

__m256i order_of(std::uint64_t bytes) {
  return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(bytes)));
}

// Whole groups of 32 bytes (8 or 4 elements) while a full store fits in the kept count, then
// the portable loop.
template <class Word>
std::size_t compact(const Word* in, const std::uint8_t* flags, std::size_t n, Word* out) {
  constexpr unsigned kGroup = 32 / sizeof(Word);
  const std::array<std::uint64_t, 256>& orders = sizeof(Word) == 4 ? kLanes : kPairs;
  const std::size_t total = count_kept(flags, n);
  std::size_t cursor = 0, i = 0;
  for (; i + kGroup <= n && cursor + kGroup <= total; i += kGroup) {
    const unsigned keep = kept_lanes(flags + i, kGroup);
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + cursor),
                        _mm256_permutevar8x32_epi32(v, order_of(orders[keep])));
    cursor += static_cast<unsigned>(__builtin_popcount(keep));
  }
  return cursor + compact_portable(in + i, flags + i, n - i, out + cursor);
}

}  // namespace

std::size_t compact32(const std::uint32_t* in, const std::uint8_t* flags, std::size_t n,
                      std::uint32_t* out) {
  return compact(in, flags, n, out);
}

std::size_t compact64(const std::uint64_t* in, const std::uint8_t* flags, std::size_t n,
                      std::uint64_t* out) {
  return compact(in, flags, n, out);
}

}  // namespace cvl::cpu::simd::avx2
