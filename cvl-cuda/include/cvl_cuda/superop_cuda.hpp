// CUDA C++ source for FCODE superoperators (vcode/superop.hpp): one self-contained program text
// that NVRTC or nvcc compiles, with one kernel per superoperator; no CUDA is needed to make it.
//
// The program (cuda_program_source) is the prelude, then cuda_source(op) for each superoperator.
// The prelude is cvl/include/cvl/scalar_semantics.hpp and segment_view.hpp, embedded at build
// time, plus the helpers below, so every backend computes each element with the same scalar functions. Compile
// it with `--fmad=false` (NVRTC: `--fmad=false`), as scalar_semantics.hpp requires; the text
// needs no include path and no standard library.
//
// Kernel ABI, for superoperator n with operands $0..$k-1 (deepest first):
//
//   extern "C" __global__ void nesl_superop_<n>(<operand parameters>, long long first,
//                                               long long n, const long long* __restrict__ count,
//                                               <R>* __restrict__ out,
//                                               unsigned long long* __restrict__ fault)
//
//   operand parameters, in operand order:
//     INT $k     const int* __restrict__ in<k>
//     FLOAT $k   const double* __restrict__ in<k>
//     BOOL $k    const unsigned char* __restrict__ in<k>          (0 or 1)
//     SEGDES $k  cvl_sem::SegmentView sd<k>                       by value (cvl/segment_view.hpp)
//     A vector has the length the length rules of superop.hpp give it (the domain, or one
//     element per segment for a DIST/INDEX leaf); it may be NULL when its length is 0.
//     The view's `index` and `uniform` are optional: without them the kernel finds the segment
//     of element j by binary search in its offsets.
//   first   the first element evaluated: elements first..n-1 are written, element j to
//           out[j - first] (0: the whole domain; a reduction streamed in chunks passes each
//           chunk's start, with n its end);
//   n       the domain length (elements the expression is evaluated at), or an upper bound of it
//           when `count` is given;
//   count   NULL, or where the device holds the domain length (a count still pending on the
//           device, cvl/length.hpp): the kernel evaluates min(n, *count) elements; the operands'
//           buffers hold at least n elements where they are read at j, and their descriptors'
//           offsets end at the real total (cvl-cuda's handles.hpp);
//   out     n - first elements of type R: int, double or unsigned char;
//   fault   a word the host sets to 0xFFFFFFFFFFFFFFFF before the launch (or NULL when the
//           superoperator evaluates no INT / or %: SuperOpAnalysis::divides). An INT / or % whose
//           divisor traps (0, or INT_MIN / -1) lowers it with atomicMin to (j << 1) | overflow,
//           j the element, overflow 1 for INT_MIN / -1 and 0 for division by zero; the host
//           reports "division by zero" or "integer overflow in division (-2147483648 / -1)" for
//           the lowest j, like cvl-cpu. The result is then meaningless.
//
// Any 1-D launch shape works: each thread takes elements j = global thread id, then steps by
// the total thread count (a grid-stride loop).
//
// Roots: an elementwise (or DIST/INDEX/operand) root writes the result itself: out[j] = root(j)
// (with first = 0).
// A scan or reduce root is done in two steps: the kernel writes the root's input, out[j] =
// input(j) (R = that input's type), and the host then runs its segmented scan or reduce
// (root.op, root.type) over `out` with the descriptor operand root.args[1]. For a library that
// fuses the fold into its own kernel template instead, each superoperator also has
//
//   struct nesl_superop_<n>_args { <operand parameters as members, same names>; long long n; };
//   __device__ R nesl_superop_<n>_value(const nesl_superop_<n>_args& a, long long j,
//                                       unsigned long long* fault);
//   struct nesl_superop_<n>_functor { nesl_superop_<n>_args a; unsigned long long* fault;
//                                     __device__ R operator()(long long j) const; };
//
// which give the value the kernel writes at element j (the root's value or the root's input).
// Names and parameter order are stable: code may rely on them.
#pragma once

#include <string>
#include <vector>

#include "vcode/superop.hpp"

namespace vcode {

// "nesl_superop_<n>"
std::string cuda_kernel_name(const SuperOp& op);

// The args struct, value function, functor and kernel of one superoperator (no prelude); of one
// with nested reductions, those of each stage (vcode/superop_stages.hpp), kernel k named
// nesl_superop_<n>_stage<k>. Throws std::invalid_argument for a definition check_superop rejects.
std::string cuda_source(const SuperOp& op);

// The prelude: scalar_semantics.hpp and the segment and fault helpers the kernels use.
const std::string& cuda_prelude();

// The prelude followed by cuda_source of every superoperator.
std::string cuda_program_source(const std::vector<SuperOp>& ops);

}  // namespace vcode
