// The built-in functions' type signatures, read from basis.types (embedded in the library at build time).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "nesl/ast.hpp"
#include "nesl/source.hpp"

namespace nesl {

// Signatures by name (an identifier or an operator symbol), still as type syntax: the checker
// turns them into types, so basis and user signatures follow one set of rules. The primitives'
// come from basis.types, the library functions' from their declarations in basis.nesl.
struct Basis {
  std::shared_ptr<SourceFile> source;  // keeps the locations in the signatures valid
  // basis.nesl as parsed: its functions' declarations are in `signatures`, and the library is
  // checked from it (library.hpp), so that it is parsed once.
  std::shared_ptr<const Program> library;
  std::map<std::string, std::shared_ptr<const TypeSignature>, std::less<>> signatures;
};

// Reads `NAME : TYPE [:: CONTEXT]` lines with `%...%` comments; throws CompileError.
Basis parse_basis(std::shared_ptr<SourceFile> source);

// Parses `library` (basis.nesl) into the basis, with the declared signature of each of its
// functions; a name basis.types declares too is a CompileError (each built-in is declared in
// one place).
void add_library(Basis& basis, std::shared_ptr<SourceFile> library);

// The basis.types that was embedded at build time, with the embedded basis.nesl's signatures.
std::string_view embedded_basis_text();
Basis load_embedded_basis();

}  // namespace nesl
