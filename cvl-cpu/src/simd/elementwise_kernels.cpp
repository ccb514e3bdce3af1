#include "elementwise_kernels.hpp"

#include <string>

#include "cvl/errors.hpp"
#include "block_loops.hpp"

namespace cvl::cpu {

#if defined(CVL_CPU_HAVE_WIDE_BLOCK_LOOPS)
namespace simd::avx512 {
Kernel block_kernel_for(vcode::Op op, Type type);
}
namespace simd::avx2 {
Kernel block_kernel_for(vcode::Op op, Type type);
}
#endif

namespace {

Kernel portable_kernel_for(vcode::Op op, Type type) { return block_loop_for(op, type); }

}  // namespace

std::vector<KernelVariant> kernel_variants() {
  std::vector<KernelVariant> variants{{"portable", &portable_kernel_for}};
#if defined(CVL_CPU_HAVE_WIDE_BLOCK_LOOPS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) variants.push_back({"avx2", &simd::avx2::block_kernel_for});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    variants.push_back({"avx512", &simd::avx512::block_kernel_for});
#endif
  return variants;
}

Kernel kernel_for(vcode::Op op, Type type) {
  static const auto widest = kernel_variants().back().kernel_for;
  if (const Kernel kernel = widest(op, type)) return kernel;
  if (vcode::info(op).family != vcode::Family::Elementwise)
    throw InternalError(std::string(vcode::spelling(op)) + " is not an elementwise operation");
  throw_not_defined(op, type);
}

}  // namespace cvl::cpu
