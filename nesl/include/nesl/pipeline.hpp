// The compiler's passes in order, from the checked program to VCODE, with dumps and verifiers.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/source_map.hpp"

namespace nesl {

struct PassInfo {
  std::string_view name;
  std::string_view description;
};

// parse, typecheck, specialize, normalize, flatten, lower.
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
};

// `--time-passes`: "pass NAME: MS ms" on one line.
void print_pass_time(std::ostream& out, std::string_view pass, double seconds);

// Runs specialize through lower on a checked program; each IR is verified after the pass that
// made it (a failure is an internal error naming the pass). Throws CompileError.
std::string compile_to_vcode(const Program& program, const CheckedProgram& checked, const Basis& basis,
                             const CompileOptions& options);

}  // namespace nesl
