#include "nesl/basis.hpp"

#include "nesl/diagnostics.hpp"
#include "nesl/lexer.hpp"
#include "nesl/library.hpp"
#include "nesl/parser.hpp"
#include "nesl/printer.hpp"

namespace nesl {

// Defined in the file CMake generates from lib/basis.types.
extern const char* const embedded_basis_types;

namespace {

// `(v, n)` after a built-in's name: the names of its parameters, for describe.
std::string parameter_names(const std::vector<Token>& tokens, std::size_t& position, const std::string& name) {
  std::string names;
  ++position;  // the (
  while (!tokens[position].is_symbol(")")) {
    if (!names.empty()) {
      if (!tokens[position].is_symbol(",")) {
        throw CompileError(tokens[position].where, "expected ',' or ')' between the parameters of " +
                                                       name + ", found " + describe_token(tokens[position]));
      }
      ++position;
      names += ", ";
    }
    if (tokens[position].kind != TokenKind::Identifier) {
      throw CompileError(tokens[position].where, "expected a parameter name of " + name + ", found " +
                                                     describe_token(tokens[position]));
    }
    names += tokens[position++].text;
  }
  ++position;  // the )
  return names;
}

// The line a token ends on: a string may span lines.
int last_line(const Token& token) {
  int line = token.where.line;
  if (token.kind == TokenKind::String) {
    for (char c : token.text) line += c == '\n';
  }
  return line;
}

}  // namespace

Basis parse_basis(std::shared_ptr<SourceFile> source) {
  Basis basis;
  basis.source = source;
  std::vector<Token> tokens = tokenize(*source);
  std::size_t position = 0;
  while (tokens[position].kind != TokenKind::End) {
    // The name runs up to the first `:` or `(`, so that operators of several tokens (`||`) fit too.
    const Token& first = tokens[position];
    int line = first.where.line;
    std::string name;
    while (tokens[position].kind != TokenKind::End && tokens[position].where.line == line &&
           !tokens[position].is_symbol(":") && !(tokens[position].is_symbol("(") && !name.empty())) {
      name += tokens[position++].text;
    }
    BuiltinDescription description;
    if (tokens[position].is_symbol("(") && tokens[position].where.line == line) {
      description.parameters = parameter_names(tokens, position, name);
    }
    if (!tokens[position].is_symbol(":") || tokens[position].where.line != line) {
      throw CompileError(tokens[position].where,
                         "expected ':' after the built-in name " + name + ", found " +
                             describe_token(tokens[position]));
    }
    ++position;
    TypeSignature signature = parse_type_signature(tokens, position);
    if (tokens[position].kind == TokenKind::String) {
      line = last_line(tokens[position]);
      description.documentation = tokens[position++].text;
    }
    const Token& after = tokens[position];
    if (after.kind != TokenKind::End && after.where.line == line) {
      throw CompileError(after.where, "expected the end of the line after the type of " + name +
                                          ", found " + describe_token(after));
    }
    if (!basis.signatures.count(name)) basis.declared.push_back(name);
    basis.signatures.insert_or_assign(name, std::make_shared<const TypeSignature>(std::move(signature)));
    basis.descriptions.insert_or_assign(name, std::move(description));
  }
  return basis;
}

void add_library(Basis& basis, std::shared_ptr<SourceFile> library) {
  auto program = std::make_shared<const Program>(parse_program(std::move(library)));
  for (const TopLevelForm& form : program->forms) {
    if (form.kind != TopLevelForm::Kind::Function || !form.function.signature) continue;
    if (basis.signatures.count(form.function.name)) {
      throw CompileError(form.where, "the built-in " + form.function.name +
                                         " is declared in basis.types too (declare it in one place)");
    }
    // The signature stays in the parsed library, which the pointer keeps alive.
    basis.signatures.emplace(form.function.name,
                             std::shared_ptr<const TypeSignature>(program, &*form.function.signature));
    basis.descriptions.emplace(form.function.name, BuiltinDescription{print_expression(*form.function.arguments),
                                                                      form.function.documentation});
    basis.declared.push_back(form.function.name);
  }
  basis.library = std::move(program);
}

std::string_view embedded_basis_text() { return embedded_basis_types; }

Basis load_embedded_basis() {
  Basis basis = parse_basis(std::make_shared<SourceFile>("basis.types", std::string(embedded_basis_text())));
  add_library(basis, std::make_shared<SourceFile>("basis.nesl", std::string(embedded_library_text())));
  return basis;
}

}  // namespace nesl
