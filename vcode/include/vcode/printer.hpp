// Prints a Program back as VCODE text; parse(print(p)) has the same code as p.
#pragma once

#include <ostream>
#include <string>

#include "vcode/program.hpp"

namespace vcode {

void print_program(std::ostream& out, const Program& program);
std::string print_program(const Program& program);

// A CONST instruction's operand as written after CONST: `INT 5`, `FLOAT (1.5e+00 2.0e+00)`.
std::string constant_text(const Constant& constant);

}  // namespace vcode
