// The flatten pass: core functions to flat functions over vectors, each with a lifted twin on demand.
#pragma once

#include "nesl/core.hpp"
#include "nesl/flat.hpp"

namespace nesl {

struct FlattenOptions {
  // The classic's `set arg_check off`: no division, sqrt, index or range checks.
  bool argument_checks = true;
  // "\nRUNTIME ERROR: ..." as the classic writes it; without the newline for the REPL.
  bool blank_line_before_errors = true;
};

// Vectorizes the program (the rules are in FRONTEND.md): a value becomes its leaves, an
// apply-to-each runs its body lifted over the sequence's elements, and each function called
// from lifted code gets a lifted version taking its arguments lifted plus the context segdes.
// The entry function computes main. Throws CompileError for what it does not support yet.
flat::Program flatten(const core::Program& program, const FlattenOptions& options);

}  // namespace nesl
