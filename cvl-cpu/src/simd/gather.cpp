#include "gather.hpp"

#include "cpu_features.hpp"

namespace cvl::cpu::simd {

#if defined(CVL_CPU_HAVE_AVX512_SIMD)
namespace avx512 {
void gather32(std::size_t, const std::int32_t*, const std::uint32_t*, std::uint32_t*);
void gather64(std::size_t, const std::int32_t*, const std::uint64_t*, std::uint64_t*);
std::size_t checked_gather32(const std::uint32_t*, std::uint32_t, const std::int32_t*,
                             std::uint32_t*, std::size_t, std::size_t);
std::size_t checked_gather64(const std::uint64_t*, std::uint32_t, const std::int32_t*,
                             std::uint64_t*, std::size_t, std::size_t);
}  // namespace avx512

GatherFunction<std::uint32_t> gather32() {
  return has_avx512_bw_vl() ? &avx512::gather32 : nullptr;
}
GatherFunction<std::uint64_t> gather64() {
  return has_avx512_bw_vl() ? &avx512::gather64 : nullptr;
}
CheckedGatherFunction<std::uint32_t> checked_gather32() {
  return has_avx512_bw_vl() ? &avx512::checked_gather32 : nullptr;
}
CheckedGatherFunction<std::uint64_t> checked_gather64() {
  return has_avx512_bw_vl() ? &avx512::checked_gather64 : nullptr;
}
#else
GatherFunction<std::uint32_t> gather32() { return nullptr; }
GatherFunction<std::uint64_t> gather64() { return nullptr; }
CheckedGatherFunction<std::uint32_t> checked_gather32() { return nullptr; }
CheckedGatherFunction<std::uint64_t> checked_gather64() { return nullptr; }
#endif

}  // namespace cvl::cpu::simd
