// --stats: static instruction and stack-move counts before and after, the superoperators and
// their sizes, and the functions left unoptimized with the reason.
#pragma once

#include <cstddef>
#include <ostream>

#include "fopt/ir.hpp"
#include "vcode/program.hpp"

namespace fopt {

struct CodeCounts {
  std::size_t instructions = 0;  // every instruction, RET/IF/ELSE/ENDIF included
  std::size_t stack_moves = 0;   // COPY, POP, CPOP
  std::size_t fused = 0;         // FUSED instructions
};

CodeCounts count_code(const vcode::Program& program);

void print_stats(std::ostream& out, const vcode::Program& before, const vcode::Program& after,
                 const Module& module);

}  // namespace fopt
