// The basis functions written in NESL (lib/basis.nesl, compiled in), parsed and type-checked once.
#pragma once

#include <memory>
#include <string_view>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"

namespace nesl {

struct Library {
  Program program;
  CheckedProgram checked;
};

// basis.nesl as embedded at build time.
std::string_view embedded_library_text();

// Parses and type-checks a library: each function declared with a type (a built-in programs may
// call, checked against that type) must have it. Throws CompileError naming the function.
Library check_library(const Basis& basis, std::shared_ptr<SourceFile> library);

// The embedded basis.nesl checked with `basis`, once per process for each basis file.
const Library& embedded_library(const Basis& basis);

}  // namespace nesl
