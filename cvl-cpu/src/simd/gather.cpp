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

namespace {
bool hand_out(Use use) {
  return use == Use::WhereRunnable ? has_avx512_bw_vl() : has_fast_avx512_gathers();
}
}  // namespace

GatherFunction<std::uint32_t> gather32(Use use) { return hand_out(use) ? &avx512::gather32 : nullptr; }
GatherFunction<std::uint64_t> gather64(Use use) { return hand_out(use) ? &avx512::gather64 : nullptr; }
CheckedGatherFunction<std::uint32_t> checked_gather32(Use use) {
  return hand_out(use) ? &avx512::checked_gather32 : nullptr;
}
CheckedGatherFunction<std::uint64_t> checked_gather64(Use use) {
  return hand_out(use) ? &avx512::checked_gather64 : nullptr;
}
#else
GatherFunction<std::uint32_t> gather32(Use) { return nullptr; }
GatherFunction<std::uint64_t> gather64(Use) { return nullptr; }
CheckedGatherFunction<std::uint32_t> checked_gather32(Use) { return nullptr; }
CheckedGatherFunction<std::uint64_t> checked_gather64(Use) { return nullptr; }
#endif

}  // namespace cvl::cpu::simd
