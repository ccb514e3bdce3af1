#include "families/vector_math.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;

// The slot of an elementwise op in the tables of sleef/array_functions.hpp, or -1.
int slot_of(Op op) {
  switch (op) {
    case Op::Log: return static_cast<int>(Transcendental::Log);
    case Op::Exp: return static_cast<int>(Transcendental::Exp);
    case Op::Sin: return static_cast<int>(Transcendental::Sin);
    case Op::Cos: return static_cast<int>(Transcendental::Cos);
    case Op::Tan: return static_cast<int>(Transcendental::Tan);
    case Op::Asin: return static_cast<int>(Transcendental::Asin);
    case Op::Acos: return static_cast<int>(Transcendental::Acos);
    case Op::Atan: return static_cast<int>(Transcendental::Atan);
    case Op::Sinh: return static_cast<int>(Transcendental::Sinh);
    case Op::Cosh: return static_cast<int>(Transcendental::Cosh);
    case Op::Tanh: return static_cast<int>(Transcendental::Tanh);
    default: return -1;
  }
}

struct Choice {
  const ArrayFunction* table = nullptr;
  const char* description = "the C library's scalar functions (this build has no SLEEF)";
};

// The widest instruction set this CPU (and its operating system) supports, chosen once.
const Choice& choice() {
  static const Choice chosen = [] {
    Choice c;
#if defined(CVL_CPU_HAVE_SLEEF)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
      c = {sleef::avx512_functions(), "SLEEF 1-ulp functions, AVX-512 (8 lanes)"};
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      c = {sleef::avx2_functions(), "SLEEF 1-ulp functions, AVX2 (4 lanes)"};
    } else {
      c = {sleef::sse2_functions(), "SLEEF 1-ulp functions, SSE2 (2 lanes)"};
    }
#endif
    return c;
  }();
  return chosen;
}

}  // namespace

ArrayFunction fast_math_function(Op op) {
  const int slot = slot_of(op);
  const ArrayFunction* table = choice().table;
  return slot < 0 || !table ? nullptr : table[slot];
}

const char* fast_math_description() { return choice().description; }

}  // namespace cvl::cpu
