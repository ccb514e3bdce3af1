// The basis functions written in NESL (lib/basis.nesl, compiled in), parsed and type-checked once.
#pragma once

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

// Parses and checks the embedded basis.nesl against the built-ins' signatures; throws CompileError.
Library load_library(const Basis& basis);

}  // namespace nesl
