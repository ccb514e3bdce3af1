// The lower pass: flat functions to a VCODE program, the VCODE stack serving as the environment.
#pragma once

#include <vector>

#include "nesl/flat.hpp"
#include "nesl/source.hpp"
#include "vcode/program.hpp"

namespace nesl {

struct LoweredProgram {
  vcode::Program program;  // linked: calls and IF/ELSE jumps resolved; the first function is the entry
  // Where each line of the program's text (vcode::print_program) came from, line 1 first
  // (nowhere for the lines no source expression made); each instruction's `where` is its line.
  std::vector<Location> lines;
};

// Each value lives in a stack slot from its definition to its last use: an operand is fetched
// with COPY, or with CPOP at its last use; values nobody uses are popped at once; each IF arm
// pops what the code after the IF does not need, so both arms leave the same stack; before RET
// only the results remain. A function whose code is the same as an earlier one's is left out
// and its calls go to that one.
LoweredProgram lower(const flat::Program& program);

}  // namespace nesl
