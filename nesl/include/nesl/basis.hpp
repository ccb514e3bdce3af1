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
  std::shared_ptr<SourceFile> library_source;  // basis.nesl, where the library's are written
  std::map<std::string, TypeSignature, std::less<>> signatures;
};

// Reads `NAME : TYPE [:: CONTEXT]` lines with `%...%` comments; throws CompileError.
Basis parse_basis(std::shared_ptr<SourceFile> source);

// Adds the declared signature of each function of `library` (basis.nesl); a name basis.types
// declares too is a CompileError (each built-in is declared in one place).
void add_library_signatures(Basis& basis, std::shared_ptr<SourceFile> library);

// The basis.types that was embedded at build time, with the embedded basis.nesl's signatures.
std::string_view embedded_basis_text();
Basis load_embedded_basis();

}  // namespace nesl
