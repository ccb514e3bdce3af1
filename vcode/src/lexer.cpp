#include "vcode/lexer.hpp"

#include <cstdio>

namespace vcode {

namespace {

bool is_word_char(unsigned char c) {
  switch (c) {
    case '-': case '+': case '*': case '/': case '%': case '<': case '>': case '=':
    case '!': case '.': case '_':
      return true;
    default:
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Number of leading digits of `s` starting at `i`.
std::size_t digits_at(std::string_view s, std::size_t i) {
  std::size_t n = 0;
  while (i + n < s.size() && is_digit(s[i + n])) ++n;
  return n;
}

bool is_integer(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  return s.size() > i && digits_at(s, i) == s.size() - i;
}

// digits '.' digits? ([eE] [+-]? digits?)? with an optional leading sign.
bool is_real(std::string_view s) {
  std::size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  std::size_t d = digits_at(s, i);
  if (d == 0) return false;
  i += d;
  if (i >= s.size() || s[i] != '.') return false;
  i += 1 + digits_at(s, i + 1);
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    i += digits_at(s, i);
  }
  return i == s.size();
}

class Scanner {
 public:
  Scanner(std::string_view source, std::vector<Diagnostic>& errors)
      : source_(source), errors_(errors) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      skip_blanks_and_comments();
      if (pos_ >= source_.size()) break;
      SourceLocation start = here();
      unsigned char c = static_cast<unsigned char>(source_[pos_]);
      if (is_word_char(c)) {
        tokens.push_back(word(start));
      } else if (c == '"') {
        string(start, tokens);
      } else if (c == '$') {
        operand_ref(start, tokens);
      } else if (c == '(' || c == ')') {
        tokens.push_back({c == '(' ? TokenKind::LeftParen : TokenKind::RightParen,
                          source_.substr(pos_, 1), start});
        advance(1);
      } else {
        unexpected(start, c);
        advance(1);
      }
    }
    tokens.push_back({TokenKind::End, {}, here()});
    return tokens;
  }

 private:
  SourceLocation here() const { return {line_, column_}; }

  void advance(std::size_t n) {
    for (std::size_t k = 0; k < n; ++k, ++pos_) {
      if (source_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
    }
  }

  void skip_blanks_and_comments() {
    while (pos_ < source_.size()) {
      char c = source_[pos_];
      if (c == ' ' || c == '\t' || c == '\n') {
        advance(1);
      } else if (c == '{') {
        SourceLocation start = here();
        std::size_t close = source_.find('}', pos_);
        if (close == std::string_view::npos) {
          errors_.push_back({start, "syntax error: unterminated comment (a '{' without '}')"});
          advance(source_.size() - pos_);
        } else {
          advance(close + 1 - pos_);
        }
      } else {
        break;
      }
    }
  }

  Token word(SourceLocation start) {
    std::size_t end = pos_;
    while (end < source_.size() && is_word_char(static_cast<unsigned char>(source_[end]))) ++end;
    std::string_view text = source_.substr(pos_, end - pos_);
    advance(end - pos_);
    TokenKind kind = TokenKind::Word;
    if (is_integer(text)) kind = TokenKind::Integer;
    else if (is_real(text)) kind = TokenKind::Real;
    else if (text == "I") kind = TokenKind::InputInfo;
    else if (text == "O") kind = TokenKind::OutputInfo;
    return {kind, text, start};
  }

  void string(SourceLocation start, std::vector<Token>& tokens) {
    std::size_t close = source_.find('"', pos_ + 1);
    if (close == std::string_view::npos) {
      errors_.push_back({start, "syntax error: unterminated string (a '\"' without its closing '\"')"});
      advance(source_.size() - pos_);
      return;
    }
    tokens.push_back({TokenKind::String, source_.substr(pos_ + 1, close - pos_ - 1), start});
    advance(close + 1 - pos_);
  }

  // `$` followed by at least one digit; the digits end at the first other character.
  void operand_ref(SourceLocation start, std::vector<Token>& tokens) {
    std::size_t digits = digits_at(source_, pos_ + 1);
    if (digits == 0) {
      errors_.push_back({start, "syntax error: '$' must be followed by an operand number"});
      advance(1);
      return;
    }
    tokens.push_back({TokenKind::OperandRef, source_.substr(pos_, 1 + digits), start});
    advance(1 + digits);
  }

  void unexpected(SourceLocation start, unsigned char c) {
    // Report a run of bad bytes once, not once per byte.
    if (last_bad_ + 1 == pos_ && !errors_.empty()) {
      last_bad_ = pos_;
      return;
    }
    last_bad_ = pos_;
    char text[96];
    if (c == '\r')
      std::snprintf(text, sizeof text,
                    "syntax error: unexpected carriage return (CRLF line ends are not VCODE)");
    else if (c >= 0x20 && c < 0x7f)
      std::snprintf(text, sizeof text, "syntax error: unexpected character '%c'", c);
    else
      std::snprintf(text, sizeof text, "syntax error: unexpected character 0x%02x", c);
    errors_.push_back({start, text});
  }

  std::string_view source_;
  std::vector<Diagnostic>& errors_;
  std::size_t pos_ = 0;
  std::size_t last_bad_ = static_cast<std::size_t>(-2);
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::End: return "end of file";
    case TokenKind::String: {
      std::string text(token.text.substr(0, 40));
      return "string \"" + text + (token.text.size() > 40 ? "...\"" : "\"");
    }
    default: {
      std::string text = "\"";
      text += token.text;
      text += '"';
      return text;
    }
  }
}

std::vector<Token> tokenize(std::string_view source, std::vector<Diagnostic>& errors) {
  return Scanner(source, errors).run();
}

}  // namespace vcode
