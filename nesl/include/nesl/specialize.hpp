// The specialize pass: the typed program to core functions, one monomorphic copy per instance used.
#pragma once

#include "nesl/ast.hpp"
#include "nesl/checker.hpp"
#include "nesl/core.hpp"
#include "nesl/library.hpp"

namespace nesl {

// More instances than this is taken for endless polymorphic recursion.
constexpr int kInstanceLimit = 2000;

// Resolves names (locals, the program's functions, basis.nesl's, then primitives), desugars the
// syntax (operators, `#`, `a[i]`, ranges, strings, filters) and copies each function reachable
// from the top-level forms at each concrete type it is used at. Datatypes become their fields.
// Top-level bindings become lets around the tuple of the top-level expressions, in order.
// Throws CompileError.
core::Program specialize(const Program& program, const CheckedProgram& checked, const Library& library);

}  // namespace nesl
