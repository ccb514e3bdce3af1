// The elementwise kernels of cvl-cpu's FUSED evaluator (fused.cpp): one typed loop per op and
// element type over a block of elements, on the scalar semantics shared with every backend
// (cvl/scalar_semantics.hpp), so fused results equal the unfused ops' bit for bit.
#pragma once

#include <cstddef>

#include "cvl/types.hpp"
#include "vcode/op.hpp"

namespace cvl::cpu {

// out[i] = op(in[0][i], in[1][i], in[2][i]) for i < n; `in` has the op's arity of operands, each
// of the type ops.def gives it (the instruction's type for G), `out` the result type.
using Kernel = void (*)(std::size_t n, const void* const* in, void* out);

// The kernel of elementwise `op` with instruction type `type`; throws InternalError for other
// ops. INT / and % do not check their divisors: the caller does first (a zero divisor gives
// garbage, never a trap).
Kernel kernel_for(vcode::Op op, Type type);

}  // namespace cvl::cpu
