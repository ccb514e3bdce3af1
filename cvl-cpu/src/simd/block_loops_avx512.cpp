// elementwise_kernels.hpp's block loops compiled for AVX-512 (F, DQ, BW, VL), 8 doubles a step;
// called only on CPUs that have it (elementwise_kernels.cpp).
#include "block_loops.hpp"

namespace cvl::cpu::simd::avx512 {

Kernel block_kernel_for(vcode::Op op, Type type) { return block_loop_for(op, type); }

}  // namespace cvl::cpu::simd::avx512
