// The lexer: case-insensitive words, comments, literals, every operator, and positions.
#include <catch2/catch.hpp>

#include "nesl/diagnostics.hpp"
#include "nesl/lexer.hpp"

namespace {

std::vector<nesl::Token> lex(const std::string& text) {
  static std::vector<std::shared_ptr<nesl::SourceFile>> keep_alive;
  keep_alive.push_back(std::make_shared<nesl::SourceFile>("test.nesl", text));
  return nesl::tokenize(*keep_alive.back());
}

}  // namespace

TEST_CASE("identifiers and keywords are case-insensitive", "[nesl][lexer]") {
  auto tokens = lex("FuNcTiOn Max_Val IF");
  REQUIRE(tokens.size() == 4);
  CHECK(tokens[0].is_keyword("function"));
  CHECK(tokens[1].kind == nesl::TokenKind::Identifier);
  CHECK(tokens[1].text == "max_val");
  CHECK(tokens[2].is_keyword("if"));
  CHECK(tokens[3].kind == nesl::TokenKind::End);
}

TEST_CASE("comments are skipped and positions count lines and columns", "[nesl][lexer]") {
  auto tokens = lex("% a comment\n  spanning lines %  x\n\ty");
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[0].text == "x");
  CHECK(tokens[0].where.line == 2);
  CHECK(tokens[0].where.column == 21);
  CHECK(tokens[1].text == "y");
  CHECK(tokens[1].where.line == 3);
  CHECK(tokens[1].where.column == 2);
}

TEST_CASE("numbers: integers and floats with a point or an exponent", "[nesl][lexer]") {
  auto tokens = lex("12 3.5 1e3 2.5e-2 .5 7");
  using nesl::TokenKind;
  std::vector<TokenKind> kinds;
  for (const auto& token : tokens) kinds.push_back(token.kind);
  CHECK(kinds == std::vector<TokenKind>{TokenKind::Integer, TokenKind::Float, TokenKind::Float,
                                        TokenKind::Float, TokenKind::Float, TokenKind::Integer,
                                        TokenKind::End});
  CHECK(tokens[3].text == "2.5e-2");
}

TEST_CASE("characters follow a backquote, strings resolve backslash escapes", "[nesl][lexer]") {
  auto tokens = lex("`a ` \"q\\\"x\\\\y\"");
  REQUIRE(tokens.size() == 4);
  CHECK(tokens[0].kind == nesl::TokenKind::Character);
  CHECK(tokens[0].text == "a");
  CHECK(tokens[1].kind == nesl::TokenKind::Character);
  CHECK(tokens[1].text == " ");
  CHECK(tokens[2].kind == nesl::TokenKind::String);
  CHECK(tokens[2].text == "q\"x\\y");
}

TEST_CASE("every operator is one token, longest first", "[nesl][lexer]") {
  std::vector<std::string> symbols = {"->", "<-", "::", "++", "/=", "==", "<=", ">=", "||",
                                      "+",  "-",  "*",  "/",  "^",  "#",  "@",  "<",  ">",
                                      "=",  ",",  ";",  ":",  "$",  "(",  ")",  "[",  "]",
                                      "{",  "}",  "|"};
  std::string text;
  for (const auto& symbol : symbols) text += symbol + " ";
  auto tokens = lex(text);
  REQUIRE(tokens.size() == symbols.size() + 1);
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    CHECK(tokens[i].kind == nesl::TokenKind::Symbol);
    CHECK(tokens[i].text == symbols[i]);
  }
  // As in the classic, `x<-1` is a write, not a comparison with -1.
  auto write = lex("x<-1");
  CHECK(write[1].text == "<-");
}

TEST_CASE("bad input is reported where it starts", "[nesl][lexer]") {
  auto location_of_error = [](const std::string& text) {
    try {
      lex(text);
    } catch (const nesl::CompileError& error) {
      return std::pair{error.where().line, error.where().column};
    }
    return std::pair{0, 0};
  };
  CHECK(location_of_error("x\n  % open") == std::pair{2, 3});
  CHECK(location_of_error("s = \"abc") == std::pair{1, 5});
  CHECK(location_of_error("a ? b") == std::pair{1, 3});
  CHECK(location_of_error("`") == std::pair{1, 1});
  CHECK(location_of_error("12abc") == std::pair{1, 3});
}
