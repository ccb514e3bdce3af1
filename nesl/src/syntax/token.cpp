#include "nesl/token.hpp"

#include <array>

namespace nesl {

std::string describe_token(const Token& token) {
  switch (token.kind) {
    case TokenKind::Identifier:
      return is_keyword(token.text) ? "'" + token.text + "'" : "identifier '" + token.text + "'";
    case TokenKind::Integer: return "integer " + token.text;
    case TokenKind::Float: return "float " + token.text;
    case TokenKind::Character: return "character `" + token.text;
    case TokenKind::String: return "a string";
    case TokenKind::Symbol: return "'" + token.text + "'";
    case TokenKind::End: return "end of file";
  }
  return "?";
}

bool is_keyword(std::string_view identifier) {
  static constexpr std::array<std::string_view, 12> keywords = {
      "function", "datatype", "if", "then", "else", "let",
      "in",       "and",      "or", "xor",  "nor",  "nand"};
  for (std::string_view keyword : keywords) {
    if (keyword == identifier) return true;
  }
  return false;
}

}  // namespace nesl
