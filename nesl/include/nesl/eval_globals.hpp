// The eval-globals pass: a file's top-level bindings run as the classic's load ran them.
#pragma once

#include <memory>
#include <ostream>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/vm_run.hpp"

namespace nesl {

// Runs each top-level binding of `program` in this process, each in a VM of its own as the
// REPL does (so each draws from a fresh random stream; what they print goes to `errors`), and
// gives the program with each binding's value written back as a literal: what the classic's
// `dump vcode` wrote after loading the file. The VM runs them at one thread, on the cpu backend,
// within the limits of `limits` (its memory, call depth and sandbox). A binding that fails is a
// CompileError.
Program evaluate_globals(Program program, std::shared_ptr<const Basis> basis, bool argument_checks,
                         const VmSettings& limits, std::ostream& errors);

}  // namespace nesl
