#include <catch2/catch.hpp>

#include "vcode/lexer.hpp"

using vcode::TokenKind;

namespace {

std::vector<vcode::Token> lex(std::string_view source, std::vector<vcode::Diagnostic>* errors = nullptr) {
  std::vector<vcode::Diagnostic> local;
  auto tokens = vcode::tokenize(source, errors ? *errors : local);
  if (!errors) REQUIRE(local.empty());
  return tokens;
}

TokenKind kind_of(std::string_view word) {
  auto tokens = lex(word);
  REQUIRE(tokens.size() == 2);
  return tokens[0].kind;
}

}  // namespace

TEST_CASE("numbers follow the longest-match rules of spec §2", "[lexer]") {
  CHECK(kind_of("42") == TokenKind::Integer);
  CHECK(kind_of("-5") == TokenKind::Integer);
  CHECK(kind_of("+5") == TokenKind::Integer);
  CHECK(kind_of("007") == TokenKind::Integer);
  CHECK(kind_of("1.5") == TokenKind::Real);
  CHECK(kind_of("-2.") == TokenKind::Real);
  CHECK(kind_of("3.0e10") == TokenKind::Real);
  CHECK(kind_of("1.E-3") == TokenKind::Real);
  CHECK(kind_of("1e5") == TokenKind::Word);   // a REAL needs a point
  CHECK(kind_of(".5") == TokenKind::Word);
  CHECK(kind_of("1.5.2") == TokenKind::Word);
  CHECK(kind_of("-") == TokenKind::Word);
  CHECK(kind_of("3D") == TokenKind::Word);
  CHECK(kind_of("PRIM-DIST_360") == TokenKind::Word);
  CHECK(kind_of("I") == TokenKind::InputInfo);
  CHECK(kind_of("O") == TokenKind::OutputInfo);
  CHECK(kind_of("IO") == TokenKind::Word);
}

TEST_CASE("a minus then a blank then 5 is two tokens", "[lexer]") {
  auto tokens = lex("- 5");
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[0].kind == TokenKind::Word);
  CHECK(tokens[1].kind == TokenKind::Integer);
}

TEST_CASE("strings keep newlines and braces; comments vanish", "[lexer]") {
  auto tokens = lex("{ a comment\n with \" a quote { }\nCONST CHAR \"a {b}\nc\" X");
  REQUIRE(tokens.size() == 5);
  CHECK(tokens[0].text == "CONST");
  CHECK(tokens[0].where.line == 3);
  CHECK(tokens[2].kind == TokenKind::String);
  CHECK(tokens[2].text == "a {b}\nc");
  CHECK(tokens[3].text == "X");
  CHECK(tokens[3].where.line == 4);
  CHECK(tokens[3].where.column == 4);
}

TEST_CASE("parentheses are tokens of their own", "[lexer]") {
  auto tokens = lex("(1 2)");
  REQUIRE(tokens.size() == 5);
  CHECK(tokens[0].kind == TokenKind::LeftParen);
  CHECK(tokens[3].kind == TokenKind::RightParen);
}

TEST_CASE("bad characters are reported with their position", "[lexer]") {
  std::vector<vcode::Diagnostic> errors;
  lex("FUNC A\r\nRET", &errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].where.line == 1);
  CHECK(errors[0].where.column == 7);
  CHECK_THAT(errors[0].message, Catch::Contains("carriage return"));

  errors.clear();
  lex(std::string_view("A \x01\x02\x03 B", 7), &errors);
  REQUIRE(errors.size() == 1);  // one report for a run of bad bytes
  CHECK_THAT(errors[0].message, Catch::Contains("0x01"));

  errors.clear();
  lex(std::string_view("A \0 B", 5), &errors);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].message, Catch::Contains("0x00"));
}

TEST_CASE("unterminated strings and comments are errors", "[lexer]") {
  std::vector<vcode::Diagnostic> errors;
  lex("FUNC A \"abc", &errors);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].message, Catch::Contains("unterminated string"));
  errors.clear();
  lex("FUNC A\n{ abc", &errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].where.line == 2);
  CHECK_THAT(errors[0].message, Catch::Contains("unterminated comment"));
}
