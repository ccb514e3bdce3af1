// The structure of one VCODE function's code: instructions with each IF's then/else parts
// nested, so analyses walk IF/ELSE/ENDIF as a tree instead of by jump targets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vcode/program.hpp"

namespace fopt {

struct CodeNode {
  std::uint32_t instruction = 0;  // index into Program::code (an IF for a conditional)
  bool is_if = false;
  std::vector<CodeNode> then_part, else_part;
};

// The top-level nodes of function `f` up to (not including) its first top-level RET. Throws
// std::runtime_error naming the function when IF/ELSE/ENDIF do not nest.
std::vector<CodeNode> code_tree(const vcode::Program& program, const vcode::Function& f);

}  // namespace fopt
