// FCODE front end: SUPEROP definitions parse into the node model, print back exactly, and every
// static rule of vcode/superop.hpp is reported with its location.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "vcode/parser.hpp"
#include "vcode/printer.hpp"
#include "vcode/superop_print.hpp"
#include "vcode/verify.hpp"

using vcode::Op;
using vcode::TypeKeyword;
using Kind = vcode::SuperOpNode::Kind;

namespace {

vcode::Program parse(const std::string& source) {
  auto program = vcode::parse_program(source, "test.fcode");
  INFO(source);
  REQUIRE(vcode::verify_program(program).empty());
  return program;
}

std::string load_error(const std::string& source) {
  try {
    vcode::parse_program(source, "bad.fcode");
  } catch (const vcode::LoadError& e) {
    return e.what();
  }
  FAIL("the program loaded: " << source);
  return "";
}

// A program around one definition, with a FUSED using it.
std::string with_main(const std::string& definition) {
  return definition + "\nFUNC MAIN\nFUSED 0\nRET\n";
}

}  // namespace

TEST_CASE("a SUPEROP definition parses into nodes, children first", "[superop]") {
  auto p = parse(
      "SUPEROP 0 (FLOAT FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT $1 $2)) $2)\n"
      "FUNC MAIN\nFUSED 0\nRET\n");
  REQUIRE(p.superops.size() == 1);
  const vcode::SuperOp& op = p.superops[0];
  CHECK(op.id == 0);
  CHECK(op.operands == std::vector{TypeKeyword::Float, TypeKeyword::Float, TypeKeyword::Segdes});
  REQUIRE(op.nodes.size() == 7);
  CHECK(op.nodes[0].kind == Kind::Operand);
  CHECK(op.nodes[3].kind == Kind::Dist);
  CHECK(op.nodes[3].args[0] == 1);
  CHECK(op.nodes[3].args[1] == 2);
  CHECK(op.nodes[4].op == Op::Mul);
  CHECK(op.nodes[4].arity == 2);
  CHECK(op.root().kind == Kind::Reduce);
  CHECK(op.root().args[0] == 4);
  CHECK(op.root().args[1] == 5);
  CHECK(op.reduces());
  CHECK(op.result_type() == TypeKeyword::Float);
  CHECK(p.code[0].op == Op::Fused);
  CHECK(p.code[0].count == 0);
}

TEST_CASE("implied types and result types follow ops.def", "[superop]") {
  auto p = parse(with_main(
      "SUPEROP 0 (FLOAT INT BOOL) (SELECT INT (< INT (FLOOR $0) (% $1 (CONST INT 7))) "
      "(B_TO_I $2) (ROUND (I_TO_F $1)))"));
  const auto& nodes = p.superops[0].nodes;
  for (const auto& n : nodes) {
    if (n.kind != Kind::Elementwise) continue;
    INFO(vcode::spelling(n.op));
    switch (n.op) {
      case Op::Floor: CHECK(n.type == TypeKeyword::Float); CHECK(n.result == TypeKeyword::Int); break;
      case Op::Mod: CHECK(n.type == TypeKeyword::Int); break;
      case Op::Less: CHECK(n.result == TypeKeyword::Bool); break;
      case Op::BoolToInt: CHECK(n.type == TypeKeyword::Bool); break;
      case Op::IntToFloat: CHECK(n.result == TypeKeyword::Float); break;
      default: break;
    }
  }
  CHECK(p.superops[0].result_type() == TypeKeyword::Int);
}

TEST_CASE("FCODE round-trips through the printer, FLOAT constants exactly", "[superop][printer]") {
  const std::string source =
      "SUPEROP 1 (INT SEGDES) (+_SCAN INT (* INT $0 (INDEX (CONST INT -5) (CONST INT 2147483647) $1)) $1)\n"
      "SUPEROP 0 (FLOAT) (+ FLOAT (* FLOAT $0 (CONST FLOAT 0.1)) (- FLOAT (CONST FLOAT 1.0e-300) "
      "(/ FLOAT (CONST FLOAT -0.0) (CONST FLOAT 1.0e999))))\n"
      "SUPEROP 2 (BOOL BOOL INT) (SELECT BOOL (NOT BOOL $0) (XOR BOOL $1 (CONST BOOL T)) "
      "(I_TO_B (LSHIFT $2 (CONST INT 3))))\n"
      "SUPEROP 3 (FLOAT SEGDES INT) (MAX_REDUCE FLOAT (SQRT (DIST FLOAT (CONST FLOAT 0.3333333333333333) $1)) $1)\n"
      "FUNC MAIN\nCONST FLOAT 1.0\nFUSED 0\nFUSED 2\nRET\n";
  // SUPEROP 3 declares an unused INT: rejected; the others form the program.
  CHECK_THAT(load_error(source), Catch::Contains("SUPEROP 3: operand $2 is declared but not used"));
  auto p = parse(source.substr(0, source.find("SUPEROP 3")) + "FUNC MAIN\nFUSED 1\nRET\n");
  REQUIRE(p.superops.size() == 3);
  CHECK(p.superops[1].id == 1);  // sorted by number
  std::string text = vcode::print_program(p);
  auto again = vcode::parse_program(text, "printed.fcode");
  CHECK(again.same_code(p));
  CHECK(vcode::print_program(again) == text);
  // The constants survive bit for bit.
  const auto& nodes = again.superops[0].nodes;
  std::vector<double> floats;
  for (const auto& n : nodes)
    if (n.kind == Kind::Constant) floats.push_back(n.float_value);
  REQUIRE(floats.size() == 4);
  CHECK(floats[0] == 0.1);
  CHECK(floats[1] == 1.0e-300);
  CHECK(std::signbit(floats[2]));
  CHECK(std::isinf(floats[3]));
  CHECK(vcode::superop_text(again.superops[1]) ==
        "SUPEROP 1 (INT SEGDES) (+_SCAN INT (* INT $0 (INDEX (CONST INT -5) "
        "(CONST INT 2147483647) $1)) $1)");
}

TEST_CASE("a plain VCODE program has no superoperators and prints as before", "[superop]") {
  auto p = parse("FUNC MAIN\nCONST INT 1\nRET\n");
  CHECK(p.superops.empty());
  CHECK(vcode::print_program(p) == "FUNC MAIN\nCONST INT 1\nRET\n");
}

TEST_CASE("bad definitions are load errors at their line and column", "[superop]") {
  struct Case {
    std::string source, message;
  };
  const std::vector<Case> cases = {
      {with_main("SUPEROP 0 (INT) (FOO INT $0)"), "bad.fcode:1:18: error: unknown op \"FOO\""},
      {with_main("SUPEROP 0 (INT) (+ INT $0)"), "bad.fcode:1:18: error: SUPEROP 0: + takes 2 arguments, 1 given"},
      {with_main("SUPEROP 0 (INT) (+ INT $0 $0 $0 $0)"), "too many arguments for +"},
      {with_main("SUPEROP 0 (INT FLOAT) (+ INT $0 $1)"),
       "bad.fcode:1:33: error: SUPEROP 0: type error: argument 2 of + is FLOAT, expected INT ($1)"},
      {with_main("SUPEROP 0 (BOOL) (+ BOOL $0 $0)"), "SUPEROP 0: + is not defined on BOOL"},
      {with_main("SUPEROP 0 (FLOAT) (FLOOR (FLOOR $0))"), "argument 1 of FLOOR is INT, expected FLOAT"},
      {with_main("SUPEROP 0 (INT SEGDES) (DIST INT (+ INT $0 $0) $1)"),
       "argument 1 of DIST must be an operand $k or a constant"},
      {with_main("SUPEROP 0 (INT INT) (DIST INT $0 $1)"),
       "the segment descriptor of DIST must be a SEGDES operand $s, not $1"},
      {with_main("SUPEROP 0 (INT SEGDES) (INDEX $0 (CONST BOOL T) $1)"),
       "argument 2 of INDEX is BOOL, expected INT"},
      {with_main("SUPEROP 0 (INT SEGDES) (+ INT (+_SCAN INT $0 $1) $0)"),
       "SUPEROP 0: +_SCAN may only be the root of a superoperator"},
      {with_main("SUPEROP 0 (INT SEGDES) (+_REDUCE INT $0 $0)"), "must be a SEGDES operand"},
      {with_main("SUPEROP 0 (INT SEGDES) (+ INT (+_REDUCE INT $0 $1) $0)"),
       "SUPEROP 0: +_REDUCE may only be the root of a superoperator or the value of a DIST over "
       "its own descriptor"},
      {with_main("SUPEROP 0 (INT SEGDES SEGDES) (+ INT $0 (DIST INT (+_REDUCE INT $0 $1) $2))"),
       "a DIST of a reduction must be over the reduction's descriptor, $1, not $2"},
      {with_main("SUPEROP 0 (INT SEGDES) (+ INT $0 (DIST INT (+_SCAN INT $0 $1) $1))"),
       "+_SCAN may only be the root of a superoperator"},
      {with_main("SUPEROP 0 (INT SEGDES) (+ INT $0 (DIST FLOAT (+_REDUCE INT $0 $1) $1))"),
       "argument 1 of DIST is INT, expected FLOAT"},
      {with_main("SUPEROP 0 (INT SEGDES) (+ INT $0 $1)"), "argument 2 of + is SEGDES, expected INT"},
      {with_main("SUPEROP 0 (INT) (+ INT $0 $1)"), "bad.fcode:1:27: error: SUPEROP 0: $1 is out of range (1 operands declared)"},
      {with_main("SUPEROP 0 (INT INT) (NOT INT $0)"), "SUPEROP 0: operand $1 is declared but not used"},
      {with_main("SUPEROP 0 () (+ INT (CONST INT 1) (CONST INT 2))"), "no length source"},
      {with_main("SUPEROP 0 (INT SEGDES) (DIST INT $0 $1)") + "SUPEROP 0 (INT) (NOT INT $0)\n",
       "bad.fcode:5:1: error: SUPEROP 0 is defined twice (first on line 1)"},
      {with_main("SUPEROP 0 (INT) (NOT INT $0)") + "SUPEROP 3 (INT) (NOT INT $0)\n",
       "bad.fcode:5:1: error: SUPEROP 1 to 2 are not defined"},
      {with_main("SUPEROP 0 (INT) (NOT INT $0)") + "FUNC G\nFUSED 1\nRET\n",
       "bad.fcode:6:1: error: FUSED 1 names no SUPEROP definition (1 defined)"},
      {"FUNC MAIN\nFUSED 0\nRET\n", "FUSED 0 names no SUPEROP definition (0 defined)"},
      {with_main("SUPEROP 0 (INT SEGDES) (PERMUTE INT $0 $0 $1)"), "\"PERMUTE\" cannot appear in a superoperator"},
      {with_main("SUPEROP 0 (CHAR) (NOT INT $0)"), "expected an operand kind"},
      {with_main("SUPEROP 0 (INT) (+ INT $0 (CONST INT 1.5))"), "expected an INT literal"},
      {with_main("SUPEROP 0 (INT) (+ INT $0 (CONST INT 2147483648))"), "expected an INT literal"},
      {with_main("SUPEROP 0 (FLOAT) (+ FLOAT $0 (CONST FLOAT 2))"), "expected a FLOAT literal"},
      {with_main("SUPEROP 0 (INT) (+ INT $0 $)"), "'$' must be followed by an operand number"},
      {with_main("SUPEROP -1 (INT) (NOT INT $0)"), "expected a superoperator number"},
      {with_main("SUPEROP 0 (INT) (NOT INT $0"), "syntax error: unexpected \"FUNC\""},
      {"FUNC MAIN\nRET\nSUPEROP 0 (INT) (NOT INT $0)\n", "no FUSED"},
      {"SUPEROP 0 (INT) (NOT INT $0)\n", "no FUNC in the program"},
      {"FUNC SUPEROP\nRET\n", "expected a function name"},
      {"FUNC MAIN\nFUSED\nRET\n", "expected a count after FUSED"},
  };
  for (const auto& c : cases) {
    INFO(c.source);
    if (c.message == "no FUSED") {  // a definition nobody uses is fine
      CHECK(parse(c.source).superops.size() == 1);
      continue;
    }
    CHECK_THAT(load_error(c.source), Catch::Contains(c.message));
  }
}

TEST_CASE("verify_program checks superoperators built in memory", "[superop][verify]") {
  auto p = parse(with_main("SUPEROP 0 (INT INT) (+ INT $0 $1)"));
  CHECK(vcode::verify_program(p).empty());
  auto wrong_type = p;
  wrong_type.superops[0].nodes[1].result = TypeKeyword::Float;
  CHECK_FALSE(vcode::verify_program(wrong_type).empty());
  auto cycle = p;
  cycle.superops[0].nodes[2].args[0] = 2;
  CHECK_FALSE(vcode::verify_program(cycle).empty());
  auto renumbered = p;
  renumbered.superops[0].id = 4;
  auto problems = vcode::verify_program(renumbered);
  REQUIRE_FALSE(problems.empty());
  CHECK_THAT(problems[0], Catch::Contains("position 0"));
}

TEST_CASE("deep expressions parse up to the nesting limit", "[superop]") {
  auto nested = [](int depth) {
    std::string e = "$0";
    for (int i = 0; i < depth; ++i) e = "(NOT INT " + e + ")";
    return with_main("SUPEROP 0 (INT) " + e);
  };
  CHECK(parse(nested(2000)).superops[0].nodes.size() == 2001);
  CHECK_THAT(load_error(nested(2002)), Catch::Contains("nested too deeply"));
}

TEST_CASE("FLOAT constants are equal only when their bits are", "[superop]") {
  vcode::SuperOpNode zero, negative_zero;
  zero.kind = negative_zero.kind = vcode::SuperOpNode::Kind::Constant;
  zero.type = negative_zero.type = vcode::TypeKeyword::Float;
  zero.float_value = 0.0;
  negative_zero.float_value = -0.0;
  CHECK_FALSE(zero == negative_zero);
  vcode::SuperOpNode nan = zero;
  nan.float_value = std::numeric_limits<double>::quiet_NaN();
  CHECK(nan == nan);
  vcode::Constant a, b;
  a.type = b.type = vcode::TypeKeyword::Float;
  a.floats = {1.0, 0.0};
  b.floats = {1.0, -0.0};
  CHECK_FALSE(a == b);
  b.floats[1] = 0.0;
  CHECK(a == b);
}
