// The interface of the per-instruction-set files in this folder, which wrap SLEEF's vector
// functions into loops over arrays. Each of those files is compiled for its own instruction set
// (cvl-cpu/CMakeLists.txt) and called only on a CPU that has it, so this header and those files
// include no inline code of the project: nothing compiled for AVX-512 may be shared with (and
// picked by the linker for) code that runs everywhere.
#pragma once

#include <cstddef>

namespace cvl::cpu {

// out[i] = f(in[i]) for i < n; `in` may be `out`.
using ArrayFunction = void (*)(std::size_t n, const double* in, double* out);

// The functions, in this order, in every table below.
enum class Transcendental : int { Log, Exp, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Count };

namespace sleef {
// Tables of ArrayFunction indexed by Transcendental, for CPUs with AVX-512F, with AVX2 and FMA,
// and for every x86-64 CPU (SSE2).
const ArrayFunction* avx512_functions();
const ArrayFunction* avx2_functions();
const ArrayFunction* sse2_functions();
}  // namespace sleef

}  // namespace cvl::cpu
