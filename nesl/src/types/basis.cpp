#include "nesl/basis.hpp"

#include "nesl/diagnostics.hpp"
#include "nesl/lexer.hpp"
#include "nesl/parser.hpp"

namespace nesl {

// Defined in the file CMake generates from lib/basis.types.
extern const char* const embedded_basis_types;

Basis parse_basis(std::shared_ptr<SourceFile> source) {
  Basis basis;
  basis.source = source;
  std::vector<Token> tokens = tokenize(*source);
  std::size_t position = 0;
  while (tokens[position].kind != TokenKind::End) {
    // The name runs up to the first `:`, so that operators of several tokens (`||`) fit too.
    const Token& first = tokens[position];
    int line = first.where.line;
    std::string name;
    while (tokens[position].kind != TokenKind::End && tokens[position].where.line == line &&
           !tokens[position].is_symbol(":")) {
      name += tokens[position++].text;
    }
    if (!tokens[position].is_symbol(":") || tokens[position].where.line != line) {
      throw CompileError(tokens[position].where,
                         "expected ':' after the built-in name " + name + ", found " +
                             describe_token(tokens[position]));
    }
    ++position;
    TypeSignature signature = parse_type_signature(tokens, position);
    const Token& after = tokens[position];
    if (after.kind != TokenKind::End && after.where.line == line) {
      throw CompileError(after.where, "expected the end of the line after the type of " + name +
                                          ", found " + describe_token(after));
    }
    basis.signatures.insert_or_assign(name, std::move(signature));
  }
  return basis;
}

std::string_view embedded_basis_text() { return embedded_basis_types; }

Basis load_embedded_basis() {
  return parse_basis(std::make_shared<SourceFile>("basis.types", std::string(embedded_basis_text())));
}

}  // namespace nesl
