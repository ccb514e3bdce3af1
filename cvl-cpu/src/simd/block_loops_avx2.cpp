// elementwise_kernels.hpp's block loops compiled for AVX2, 4 doubles a step; called only on CPUs
// that have it and lack AVX-512 (elementwise_kernels.cpp).
#include "block_loops.hpp"

namespace cvl::cpu::simd::avx2 {

Kernel block_kernel_for(vcode::Op op, Type type) { return block_loop_for(op, type); }

}  // namespace cvl::cpu::simd::avx2
