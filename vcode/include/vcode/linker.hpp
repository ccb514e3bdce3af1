// Resolves CALL targets and the entry point of a parsed program (last definition wins).
#pragma once

#include <vector>

#include "vcode/program.hpp"

namespace vcode {

// Fills Instruction::target of every CALL and Program::entry_function; appends an
// `error: unresolved function NAME` diagnostic for each unknown callee.
void link_program(Program& program, std::vector<Diagnostic>& errors);

}  // namespace vcode
