// Pass "lift": symbolic execution of each function's stack code into let-bound variables, so
// COPY/POP/CPOP disappear; functions it cannot handle are kept as they are (with the reason).
#pragma once

#include "fopt/ir.hpp"

namespace fopt {

Module lift(const vcode::Program& program);

}  // namespace fopt
