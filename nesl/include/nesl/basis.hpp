// The built-in functions' type signatures, read from basis.types (embedded in the library at build time).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nesl/ast.hpp"
#include "nesl/source.hpp"

namespace nesl {

// What `describe` and the library reference show of a built-in besides its type: the names of
// its parameters as written (`v, n`; empty when none are given) and its documentation string,
// whose form reference.hpp reads.
struct BuiltinDescription {
  std::string parameters;
  std::string documentation;
};

// Signatures by name (an identifier or an operator symbol), still as type syntax: the checker
// turns them into types, so basis and user signatures follow one set of rules. The primitives'
// come from basis.types, the library functions' from their declarations in basis.nesl.
struct Basis {
  std::shared_ptr<SourceFile> source;  // keeps the locations in the signatures valid
  // basis.nesl as parsed: its functions' declarations are in `signatures`, and the library is
  // checked from it (library.hpp), so that it is parsed once.
  std::shared_ptr<const Program> library;
  std::map<std::string, std::shared_ptr<const TypeSignature>, std::less<>> signatures;
  std::map<std::string, BuiltinDescription, std::less<>> descriptions;  // one per signature
  std::vector<std::string> declared;  // the built-ins' names in the order they are declared
};

// Reads entries `NAME[(PARAMETERS)] : TYPE [:: CONTEXT] ["DOCUMENTATION"]`, each starting on a
// line of its own (the documentation string may follow on later lines), with `%...%`
// comments; throws CompileError.
Basis parse_basis(std::shared_ptr<SourceFile> source);

// Parses `library` (basis.nesl) into the basis, with the declared signature, parameters and
// documentation string of each of its functions; a name basis.types declares too is a
// CompileError (each built-in is declared in one place).
void add_library(Basis& basis, std::shared_ptr<SourceFile> library);

// The basis.types that was embedded at build time, with the embedded basis.nesl's signatures.
std::string_view embedded_basis_text();
Basis load_embedded_basis();

}  // namespace nesl
