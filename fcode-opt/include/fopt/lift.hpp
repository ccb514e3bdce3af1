// Pass "lift": symbolic execution of each function's stack code into let-bound variables, so
// COPY/POP/CPOP disappear; functions it cannot handle are kept as they are (with the reason).
#pragma once

#include "fopt/ir.hpp"

namespace fopt {

Module lift(const vcode::Program& program);

// Fills in unknown variable types from how the variables are used (parameters, IF results).
void infer_var_types(Module& module);

}  // namespace fopt
