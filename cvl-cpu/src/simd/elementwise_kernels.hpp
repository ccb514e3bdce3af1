// The elementwise kernels of cvl-cpu's FUSED evaluator (fused/fused.cpp), and of RAND's
// reduction by its bounds (families/random.cpp): one typed loop per op and element type over a
// block of elements, on the scalar semantics shared with every backend (cvl/scalar_semantics.hpp),
// so fused results equal the unfused ops' bit for bit. The loops are compiled for the widest
// vectors the CPU has (block_loops.hpp).
#pragma once

#include <cstddef>
#include <vector>

#include "cvl/types.hpp"
#include "vcode/op.hpp"

namespace cvl::cpu {

// out[i] = op(in[0][i], in[1][i], in[2][i]) for i < n; `in` has the op's arity of operands, each
// of the type ops.def gives it (the instruction's type for G), `out` the result type.
using Kernel = void (*)(std::size_t n, const void* const* in, void* out);

// The kernel of elementwise `op` with instruction type `type`, from the widest variant this CPU
// runs; throws InternalError for other ops. INT / and % do not check their divisors: the caller
// does first (a zero divisor gives garbage, never a trap).
Kernel kernel_for(vcode::Op op, Type type);

// One compilation of the kernels, for the tests: the portable one first, then those this build
// has and this CPU runs.
struct KernelVariant {
  const char* name;
  Kernel (*kernel_for)(vcode::Op op, Type type);
};
std::vector<KernelVariant> kernel_variants();

}  // namespace cvl::cpu
