#include <catch2/catch.hpp>

#include "vcode/parser.hpp"
#include "vcode/verify.hpp"

using vcode::Op;

namespace {

vcode::Program parse(const std::string& source, std::vector<std::string>* warnings = nullptr) {
  auto program = vcode::parse_program(source, "test.vcode", {warnings});
  REQUIRE(vcode::verify_program(program).empty());
  return program;
}

// The message of a program that must fail to load.
std::string load_error(const std::string& source) {
  try {
    vcode::parse_program(source, "bad.vcode");
  } catch (const vcode::LoadError& e) {
    return e.what();
  }
  FAIL("the program loaded");
  return "";
}

}  // namespace

TEST_CASE("integer literals are read exactly, over the whole INT range", "[parser]") {
  auto p = parse("FUNC A CONST INT (2147483647 -2147483648 +5 007 -0 0000000000002147483647) RET");
  REQUIRE(p.constants.size() == 1);
  CHECK(p.constants[0].ints ==
        std::vector<std::int32_t>{2147483647, -2147483648, 5, 7, 0, 2147483647});
}

TEST_CASE("an integer literal that does not fit a 32-bit INT is a parse error naming it",
          "[parser][errors]") {
  // The classic interpreter kept the low 32 bits (3000000000 ran as -1294967296).
  struct Case {
    std::string source;
    std::string where_and_token;
  };
  for (const auto& c : std::vector<Case>{
           {"FUNC A\nCONST INT 3000000000\nRET", "bad.vcode:2:11: syntax error: integer 3000000000 "},
           {"FUNC A\nCONST INT 100000000000\nRET", "bad.vcode:2:11: syntax error: integer 100000000000 "},
           {"FUNC A\nCONST INT 2147483648\nRET", "integer 2147483648 "},
           {"FUNC A\nCONST INT -2147483649\nRET", "integer -2147483649 "},
           {"FUNC A\nCONST INT 99999999999999999999\nRET", "integer 99999999999999999999 "},
           {"FUNC A\nCONST INT (1 2 4294967297)\nRET", "bad.vcode:2:16: syntax error: integer 4294967297 "},
           {"FUNC A\nCONST SEGDES 4294967296\nRET", "bad.vcode:2:14: syntax error: integer 4294967296 "},
           {"FUNC A\nCONST INT 1\nCOPY 4294967297 0\nRET", "bad.vcode:3:6: syntax error: integer 4294967297 "}}) {
    INFO(c.source);
    const std::string message = load_error(c.source);
    CHECK(message.find(c.where_and_token) != std::string::npos);
    CHECK(message.find("does not fit a 32-bit INT") != std::string::npos);
  }
}

TEST_CASE("every CONST form", "[parser]") {
  auto p = parse(
      "FUNC A\nCONST INT 5\nCONST INT STDERR\nCONST INT NULL_STREAM\nCONST FLOAT 1.5\n"
      "CONST FLOAT (1.0e400 -2.)\nCONST BOOL T\nCONST BOOL (T F)\nCONST SEGDES 4\n"
      "CONST SEGDES ()\nCONST CHAR \"a\xff\"\nCONST INT ()\nRET");
  REQUIRE(p.constants.size() == 11);
  CHECK(p.constants[0].ints == std::vector<std::int32_t>{5});
  CHECK_FALSE(p.constants[0].vector_form);
  CHECK(p.constants[1].ints == std::vector<std::int32_t>{2});
  CHECK(p.constants[2].ints == std::vector<std::int32_t>{-1});
  CHECK(p.constants[3].floats == std::vector<double>{1.5});
  CHECK(std::isinf(p.constants[4].floats[0]));
  CHECK(p.constants[6].ints == std::vector<std::int32_t>{1, 0});
  CHECK(p.constants[7].type == vcode::TypeKeyword::Segdes);
  CHECK(p.constants[7].ints == std::vector<std::int32_t>{4});
  CHECK(p.constants[8].ints.empty());
  CHECK(p.constants[9].ints == std::vector<std::int32_t>{97, -1});  // bytes are signed chars
  CHECK(p.constants[10].vector_form);
}

TEST_CASE("the entry is the first function unless MAIN exists; the last definition wins", "[parser]") {
  std::vector<std::string> warnings;
  auto p = parse("FUNC F1 CALL G RET\nFUNC G CONST INT 1 RET\nFUNC G CONST INT 2 RET", &warnings);
  CHECK(p.functions[p.entry_function].name == "F1");
  CHECK(p.code[0].target == p.functions[2].first);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("test.vcode:3:6") && Catch::Contains("G"));

  auto q = parse("FUNC A RET\nFUNC MAIN RET");
  CHECK(q.functions[q.entry_function].name == "MAIN");
  // A redefined first function: its last definition is the entry.
  auto r = parse("FUNC A CONST INT 1 RET\nFUNC B RET\nFUNC A CONST INT 2 RET", &warnings);
  CHECK(r.entry_function == 2);
}

TEST_CASE("IF/ELSE/ENDIF are linked at load time", "[parser]") {
  auto p = parse("FUNC A\nCONST BOOL T\nIF\nCONST INT 1\nELSE\nCONST INT 2\nENDIF\nRET");
  // code: 0 CONST, 1 IF, 2 CONST, 3 ELSE, 4 CONST, 5 ENDIF, 6 RET
  CHECK(p.code[1].op == Op::If);
  CHECK(p.code[1].target == 4);
  CHECK(p.code[3].target == 6);
  auto q = parse("FUNC A\nCONST BOOL T\nIF\nCONST BOOL F\nIF\nENDIF\nENDIF\nRET");
  CHECK(q.code[1].target == 6);
  CHECK(q.code[3].target == 5);
}

TEST_CASE("I/O type declarations are accepted and ignored", "[parser]") {
  auto p = parse("FUNC A\nI INT SEGDES\nO FLOAT\nRET");
  CHECK(p.code.size() == 1);
}

TEST_CASE("COPY, POP and CPOP take two counts; CALL a name", "[parser]") {
  auto p = parse("FUNC A COPY 2 3 POP 1 0 CPOP 0 1 CALL A RET");
  CHECK(p.code[0].count == 2);
  CHECK(p.code[0].depth == 3);
  CHECK(p.code[3].callee == "A");
}

TEST_CASE("parse errors name file, line, column and the token", "[parser][errors]") {
  CHECK_THAT(load_error(""), Catch::Contains("bad.vcode:1:1: syntax error: empty program"));
  CHECK_THAT(load_error("FUNC A\nCONST INT 1\n"), Catch::Contains("bad.vcode:3:1") &&
                                                       Catch::Contains("unexpected end of file"));
  CHECK_THAT(load_error("FUNC A\n  FOO\nRET"), Catch::Contains("bad.vcode:2:3: syntax error: unexpected \"FOO\""));
  CHECK_THAT(load_error("FUNC A\n+ BOOL\nRET"), Catch::Contains("2:3") && Catch::Contains("\"BOOL\""));
  CHECK_THAT(load_error("FUNC A\n+ INTEGER\nRET"), Catch::Contains("\"INTEGER\""));
  CHECK_THAT(load_error("FUNC A\nNOT\nRET"), Catch::Contains("\"RET\""));
  CHECK_THAT(load_error("FUNC A\nCONST FLOAT 1\nRET"), Catch::Contains("2:13") && Catch::Contains("\"1\""));
  CHECK_THAT(load_error("FUNC A\nCONST INT (1 2.5)\nRET"), Catch::Contains("illegal type mixing"));
  CHECK_THAT(load_error("FUNC A\nCONST SEGDES (1 2)\nRET"), Catch::Contains("illegal type mixing"));
  CHECK_THAT(load_error("FUNC A\nCONST INT (1 STDIN)\nRET"), Catch::Contains("stream names"));
  CHECK_THAT(load_error("FUNC A\nCONST CHAR (1)\nRET"), Catch::Contains("syntax error"));
  CHECK_THAT(load_error("FUNC A\nCONST INT (1 2\nRET"), Catch::Contains("syntax error"));
  CHECK_THAT(load_error("FUNC A\nELSE\nRET"), Catch::Contains("ELSE without IF"));
  CHECK_THAT(load_error("FUNC A\nENDIF\nRET"), Catch::Contains("ENDIF without IF"));
  CHECK_THAT(load_error("FUNC A\nCONST BOOL T\nIF\nRET"), Catch::Contains("RET inside IF"));
  CHECK_THAT(load_error("FUNC A\nCONST BOOL T\nIF\nELSE\nRET"), Catch::Contains("IF of line 3 has no ENDIF"));
  CHECK_THAT(load_error("FUNC A\nCONST BOOL T\nIF\nELSE\nELSE\nENDIF\nRET"), Catch::Contains("second ELSE"));
  CHECK_THAT(load_error("FUNC A\nCALL B\nRET"), Catch::Contains("2:1: error: unresolved function B"));
  CHECK_THAT(load_error("FUNC A RET CONST INT 1"), Catch::Contains("expected FUNC"));
  CHECK_THAT(load_error("FUNC A FUNC B RET"), Catch::Contains("missing RET"));
  CHECK_THAT(load_error("FUNC INT RET"), Catch::Contains("function name"));
  CHECK_THAT(load_error("FUNC A COPY -1 0 RET"), Catch::Contains("negative operand"));
  CHECK_THAT(load_error("FUNC A COPY 1 RET"), Catch::Contains("count"));
  CHECK_THAT(load_error("FUNC MAIN RET FUNC MAIN RET"), Catch::Contains("redefine MAIN"));
  CHECK_THAT(load_error("func A RET"), Catch::Contains("expected FUNC"));
  CHECK_THAT(load_error("FUNC A\r\nRET\r\n"), Catch::Contains("carriage return"));
}
