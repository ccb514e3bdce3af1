// Pass "lower": turns the let-form IR back into stack code (VCODE, with FUSED for
// superoperators), moving values with as few COPY/POP/CPOP as their uses require.
#pragma once

#include "fopt/ir.hpp"
#include "vcode/program.hpp"

namespace fopt {

// The linked program: printed and parsed back, so targets are resolved as vinterp expects.
vcode::Program lower(const Module& module);

}  // namespace fopt
