// Checks the structural invariants of a linked program: what the interpreter and the optimizer
// rely on (targets inside the code, every function ending in RET, balanced IF/ELSE/ENDIF, and
// well-formed FCODE superoperators).
#pragma once

#include <string>
#include <vector>

#include "vcode/program.hpp"

namespace vcode {

// Returns one message per broken invariant; empty when the program is well formed.
std::vector<std::string> verify_program(const Program& program);

}  // namespace vcode
