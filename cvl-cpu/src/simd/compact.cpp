#include "compact.hpp"

#include "cpu_features.hpp"

namespace cvl::cpu::simd {

#if defined(CVL_CPU_HAVE_AVX512_SIMD)
namespace avx512 {
std::size_t compact32(const std::uint32_t*, const std::uint8_t*, std::size_t, std::uint32_t*);
std::size_t compact64(const std::uint64_t*, const std::uint8_t*, std::size_t, std::uint64_t*);
}  // namespace avx512
namespace avx2 {
std::size_t compact32(const std::uint32_t*, const std::uint8_t*, std::size_t, std::uint32_t*);
std::size_t compact64(const std::uint64_t*, const std::uint8_t*, std::size_t, std::uint64_t*);
}  // namespace avx2

CompactFunction<std::uint32_t> compact32() {
  if (has_avx512_bw_vl()) return &avx512::compact32;
  return compact32_avx2();
}
CompactFunction<std::uint64_t> compact64() {
  if (has_avx512_bw_vl()) return &avx512::compact64;
  return compact64_avx2();
}
CompactFunction<std::uint32_t> compact32_avx2() { return has_avx2() ? &avx2::compact32 : nullptr; }
CompactFunction<std::uint64_t> compact64_avx2() { return has_avx2() ? &avx2::compact64 : nullptr; }
#else
CompactFunction<std::uint32_t> compact32() { return nullptr; }
CompactFunction<std::uint64_t> compact64() { return nullptr; }
CompactFunction<std::uint32_t> compact32_avx2() { return nullptr; }
CompactFunction<std::uint64_t> compact64_avx2() { return nullptr; }
#endif

}  // namespace cvl::cpu::simd
