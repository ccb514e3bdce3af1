// The basis functions written in NESL (lib/basis.nesl, compiled in), parsed and type-checked once.
#pragma once

#include <memory>
#include <string_view>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"

namespace nesl {

struct Library {
  std::shared_ptr<const Program> program;
  CheckedProgram checked;  // points into the program
};

// basis.nesl as embedded at build time.
std::string_view embedded_library_text();

// Type-checks the library a basis holds (add_library): each function declared with a type (a
// built-in programs may call, checked against that type) must have it. Throws CompileError
// naming the function.
Library check_library(const Basis& basis);

// The basis's library (the embedded basis.nesl) checked, once per process for each basis.
const Library& embedded_library(const Basis& basis);

}  // namespace nesl
