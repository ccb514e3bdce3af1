// The VCODE scanner (spec/VCODE.md §2): longest match over words, numbers, strings, brackets;
// `{...}` comments and blanks skipped. FCODE adds `$k` operand references (vcode/superop.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vcode/diagnostics.hpp"

namespace vcode {

enum class TokenKind : std::uint8_t {
  Integer,     // optional sign and digits
  Real,        // a number with a decimal point
  InputInfo,   // the letter I
  OutputInfo,  // the letter O
  Word,        // keyword or identifier
  String,      // "..."; text excludes the quotes
  LeftParen,
  RightParen,
  OperandRef,  // FCODE: `$` and digits, an operand of a SUPEROP definition
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;  // the token's bytes in the source (strings: without the quotes)
  SourceLocation where;
};

// Describes a token for messages: `"FOO"`, `end of file`, `string "..."`.
std::string describe(const Token& token);

// Splits `source` into tokens, ending with one End token. Characters that cannot start a
// token (including a carriage return) and unterminated strings or comments are errors and
// are reported in `errors`; scanning continues after them.
std::vector<Token> tokenize(std::string_view source, std::vector<Diagnostic>& errors);

}  // namespace vcode
