// The tokens of NESL source: what the lexer produces and the parser consumes.
#pragma once

#include <string>

#include "nesl/source.hpp"

namespace nesl {

enum class TokenKind {
  Identifier,  // lower-cased, since NESL is case-insensitive; keywords included
  Integer,     // text holds the digits as written
  Float,       // text holds the literal as written
  Character,   // text holds the one character after the backquote
  String,      // text holds the contents with escapes already resolved
  Symbol,      // an operator or punctuation, e.g. "->", "(", ";"
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  Location where;

  bool is_symbol(std::string_view symbol) const {
    return kind == TokenKind::Symbol && text == symbol;
  }
  bool is_keyword(std::string_view word) const {
    return kind == TokenKind::Identifier && text == word;
  }
};

// How a token is named in "expected ..., found ..." messages.
std::string describe_token(const Token& token);

// Whether an identifier is reserved by the grammar and cannot name a variable.
bool is_keyword(std::string_view identifier);

}  // namespace nesl
