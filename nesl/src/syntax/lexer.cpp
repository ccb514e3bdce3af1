#include "nesl/lexer.hpp"

#include <array>
#include <cctype>

#include "nesl/diagnostics.hpp"

namespace nesl {
namespace {

// Longest match first: every two-character operator before the one-character ones.
constexpr std::array<std::string_view, 10> two_character_symbols = {
    "->", "<-", "::", "=>", "++", "/=", "==", "<=", ">=", "||"};
constexpr std::string_view one_character_symbols = "+-*/^#@<>=,;:$()[]{}|";

class Lexer {
 public:
  explicit Lexer(const SourceFile& source) : source_(source), text_(source.text()) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    for (;;) {
      skip_blanks_and_comments();
      Token token;
      token.where = here();
      if (at_end()) {
        // End of file is reported just after the last token, where the missing text belongs.
        if (!tokens.empty()) token.where = end_of_last_token_;
        tokens.push_back(token);
        return tokens;
      }
      char c = peek();
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        token.kind = TokenKind::Identifier;
        while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) {
          token.text += static_cast<char>(std::tolower(static_cast<unsigned char>(advance())));
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        read_number(token);
      } else if (c == '`') {
        advance();
        if (at_end()) throw CompileError(token.where, "expected a character after `, found end of file");
        token.kind = TokenKind::Character;
        token.text = std::string(1, advance());
      } else if (c == '"') {
        read_string(token);
      } else {
        read_symbol(token);
      }
      end_of_last_token_ = here();
      tokens.push_back(std::move(token));
    }
  }

 private:
  bool at_end() const { return position_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return position_ + ahead < text_.size() ? text_[position_ + ahead] : '\0';
  }
  char advance() {
    char c = text_[position_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }
  Location here() const { return Location{&source_, line_, column_}; }

  void skip_blanks_and_comments() {
    while (!at_end()) {
      char c = peek();
      if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else if (c == '%') {
        Location opening = here();
        advance();
        while (!at_end() && peek() != '%') advance();
        if (at_end()) {
          throw CompileError(opening, "unterminated comment: expected a closing %, found end of file");
        }
        advance();
      } else {
        return;
      }
    }
  }

  void read_number(Token& token) {
    token.kind = TokenKind::Integer;
    auto digits = [&] {
      while (std::isdigit(static_cast<unsigned char>(peek()))) token.text += advance();
    };
    bool integer_part = std::isdigit(static_cast<unsigned char>(peek()));
    digits();
    // `5.` is a float, as in the classic's reader; `.5` needs its digit.
    if (peek() == '.' && (integer_part || std::isdigit(static_cast<unsigned char>(peek(1))))) {
      token.kind = TokenKind::Float;
      token.text += advance();
      digits();
    }
    bool exponent_follows =
        (peek() == 'e' || peek() == 'E') &&
        (std::isdigit(static_cast<unsigned char>(peek(1))) ||
         ((peek(1) == '+' || peek(1) == '-') && std::isdigit(static_cast<unsigned char>(peek(2)))));
    if (exponent_follows) {
      token.kind = TokenKind::Float;
      token.text += advance();
      if (peek() == '+' || peek() == '-') token.text += advance();
      digits();
    }
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
      throw CompileError(here(), std::string("expected an operator or separator after the number ") +
                                     token.text + ", found '" + peek() + "'");
    }
  }

  // As in the classic, a backslash makes the next character literal (`\"` and `\\`).
  void read_string(Token& token) {
    token.kind = TokenKind::String;
    advance();
    for (;;) {
      if (at_end()) {
        throw CompileError(token.where, "unterminated string: expected a closing \", found end of file");
      }
      char c = advance();
      if (c == '"') return;
      if (c == '\\') {
        if (at_end()) continue;
        c = advance();
      }
      token.text += c;
    }
  }

  void read_symbol(Token& token) {
    token.kind = TokenKind::Symbol;
    for (std::string_view symbol : two_character_symbols) {
      if (peek() == symbol[0] && peek(1) == symbol[1]) {
        advance();
        advance();
        token.text = std::string(symbol);
        return;
      }
    }
    if (one_character_symbols.find(peek()) != std::string_view::npos) {
      token.text = std::string(1, advance());
      return;
    }
    unsigned char bad = static_cast<unsigned char>(peek());
    std::string shown = std::isprint(bad) ? std::string("'") + static_cast<char>(bad) + "'"
                                          : "byte " + std::to_string(bad);
    throw CompileError(token.where, "expected a token, found the character " + shown);
  }

  const SourceFile& source_;
  const std::string& text_;
  std::size_t position_ = 0;
  int line_ = 1;
  int column_ = 1;
  Location end_of_last_token_;
};

}  // namespace

std::vector<Token> tokenize(const SourceFile& source) { return Lexer(source).run(); }

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace nesl
