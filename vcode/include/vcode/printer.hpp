// Prints a Program back as VCODE text; parse(print(p)) has the same code as p.
#pragma once

#include <ostream>
#include <string>

#include "vcode/program.hpp"

namespace vcode {

void print_program(std::ostream& out, const Program& program);
std::string print_program(const Program& program);

}  // namespace vcode
