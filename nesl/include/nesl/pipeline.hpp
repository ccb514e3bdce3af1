// The compiler's passes as one list, from NESL source to a VCODE program, with a verifier after
// each pass, `--dump-after` for each, and `--time-passes`.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/core.hpp"
#include "nesl/flat.hpp"
#include "nesl/lower.hpp"
#include "nesl/source_map.hpp"

namespace nesl {

struct PassInfo {
  std::string_view name;
  std::string_view description;
};

// parse, typecheck, eval-globals, specialize, normalize, flatten, flat-opt, lower: the order
// they run in.
std::span<const PassInfo> compiler_passes();
bool is_compiler_pass(std::string_view name);

struct CompileOptions {
  bool argument_checks = true;
  // A runtime error's message starts with a newline, as the classic compiler's VCODE writes it.
  bool blank_line_before_errors = true;
  std::string dump_after;          // a pass name, or empty
  std::ostream* dump = nullptr;    // where the dump goes
  SourceMap* source_map = nullptr;  // when given, set to where each VCODE line came from
  std::ostream* timings = nullptr;  // when given, each pass's time goes there (print_pass_time)
  // eval-globals: runs the program's top-level bindings and gives it back with their values
  // written in (the VM lives above this library: `nesl` gives session/eval_globals.hpp's).
  // Without it, bindings are computed by the compiled program.
  std::function<Program(Program)> evaluate_globals;
};

// `--time-passes`: "pass NAME: MS ms" on one line.
void print_pass_time(std::ostream& out, std::string_view pass, double seconds);

// What the passes have made, each from what the one before made.
struct Compilation {
  Program syntax;           // parse, eval-globals
  CheckedProgram checked;   // typecheck (again after eval-globals)
  core::Program core;       // specialize, normalize
  flat::Program flat;       // flatten, flat-opt
  LoweredProgram vcode;     // lower
};

// Parses `source` and runs the passes through `last` (a pass name). Each IR is verified after
// the pass that made it (a failure is an internal error naming the pass). Throws CompileError.
Compilation compile_until(std::string_view last, std::shared_ptr<SourceFile> source, const Basis& basis,
                          const CompileOptions& options);

// The passes after typecheck on a checked program, through lower. Throws CompileError.
LoweredProgram compile_checked(const Program& program, const CheckedProgram& checked, const Basis& basis,
                               const CompileOptions& options);

}  // namespace nesl
