// Nested reductions (vcode/superop.hpp): they load and print back, split into the stages every
// backend can run (vcode/superop_stages.hpp), and the max_index shape is recognised exactly as
// vcode/superop_arg_reduce.hpp describes it, and nothing else.
#include <catch2/catch.hpp>

#include "vcode/parser.hpp"
#include "vcode/printer.hpp"
#include "vcode/superop_arg_reduce.hpp"
#include "vcode/superop_check.hpp"
#include "vcode/superop_print.hpp"
#include "vcode/superop_stages.hpp"
#include "vcode/verify.hpp"

namespace {

vcode::SuperOp definition(const std::string& text) {
  auto program = vcode::parse_program(text + "\nFUNC MAIN\nRET\n", "stages.fcode");
  INFO(text);
  REQUIRE(vcode::verify_program(program).empty());
  REQUIRE(program.superops.size() == 1);
  return program.superops[0];
}

std::vector<std::string> stage_texts(const vcode::SuperOp& op) {
  std::vector<std::string> texts;
  for (const vcode::SuperOpStage& stage : vcode::split_stages(op)) {
    std::string inputs;
    for (std::uint32_t v : stage.inputs) inputs += " " + std::to_string(v);
    texts.push_back(vcode::superop_text(stage.op) + " <-" + inputs);
    std::vector<vcode::Diagnostic> problems;
    vcode::check_superop(stage.op, {}, problems);
    INFO(texts.back());
    CHECK(problems.empty());
    CHECK_FALSE(vcode::has_nested_reduction(stage.op));
  }
  return texts;
}

const std::string kMaxIndex =
    "SUPEROP 0 (FLOAT SEGDES INT) (MIN_REDUCE INT (SELECT INT (= FLOAT (DIST FLOAT (MAX_REDUCE "
    "FLOAT $0 $1) $1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT $2 $1)) $1)";

}  // namespace

TEST_CASE("a nested reduction loads and prints back", "[superop][stages]") {
  const vcode::SuperOp op = definition(kMaxIndex);
  CHECK(vcode::superop_text(op) == kMaxIndex);
  CHECK(vcode::has_nested_reduction(op));
  CHECK_FALSE(vcode::has_nested_reduction(definition("SUPEROP 0 (INT SEGDES) (+_REDUCE INT $0 $1)")));
  // The operand read only inside the nested reduction is still read elementwise.
  const auto uses = vcode::operand_uses(op);
  CHECK(uses[0].elementwise);
  CHECK(uses[1].segdes);
  CHECK(uses[2].per_segment_of == std::vector<std::uint32_t>{1});
}

TEST_CASE("nested reductions split into stages, innermost first", "[superop][stages]") {
  SECTION("max_index: the extreme, then the positions") {
    CHECK(stage_texts(definition(kMaxIndex)) ==
          std::vector<std::string>{
              "SUPEROP 0 (FLOAT SEGDES) (MAX_REDUCE FLOAT $0 $1) <- 0 1",
              "SUPEROP 0 (FLOAT SEGDES INT FLOAT) (MIN_REDUCE INT (SELECT INT (= FLOAT (DIST "
              "FLOAT $3 $1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT $2 $1)) $1) <- 0 "
              "1 2 3"});
  }
  SECTION("an operand read only by the reduction is not passed on") {
    CHECK(stage_texts(definition("SUPEROP 0 (INT SEGDES FLOAT) (+ FLOAT $2 (I_TO_F (DIST INT "
                                 "(+_REDUCE INT $0 $1) $1)))")) ==
          std::vector<std::string>{
              "SUPEROP 0 (INT SEGDES) (+_REDUCE INT $0 $1) <- 0 1",
              "SUPEROP 0 (SEGDES FLOAT INT) (+ FLOAT $1 (I_TO_F (DIST INT $2 $0))) <- 1 2 3"});
  }
  SECTION("a reduction inside another's values, under a scan") {
    CHECK(stage_texts(definition(
              "SUPEROP 0 (FLOAT SEGDES) (+_SCAN FLOAT (* FLOAT $0 (DIST FLOAT (+_REDUCE FLOAT "
              "(- FLOAT $0 (DIST FLOAT (MIN_REDUCE FLOAT $0 $1) $1)) $1) $1)) $1)")) ==
          std::vector<std::string>{
              "SUPEROP 0 (FLOAT SEGDES) (MIN_REDUCE FLOAT $0 $1) <- 0 1",
              "SUPEROP 0 (FLOAT SEGDES FLOAT) (+_REDUCE FLOAT (- FLOAT $0 (DIST FLOAT $2 $1)) "
              "$1) <- 0 1 2",
              "SUPEROP 0 (FLOAT SEGDES FLOAT) (+_SCAN FLOAT (* FLOAT $0 (DIST FLOAT $2 $1)) $1) "
              "<- 0 1 3"});
  }
  SECTION("a definition without nested reductions is its own single stage") {
    const vcode::SuperOp op = definition("SUPEROP 0 (INT INT) (+ INT $0 $1)");
    const auto stages = vcode::split_stages(op);
    REQUIRE(stages.size() == 1);
    CHECK(stages[0].op == op);
    CHECK(stages[0].inputs == std::vector<std::uint32_t>{0, 1});
  }
}

TEST_CASE("subtree_definition gives the expression under a node", "[superop][stages]") {
  const vcode::SuperOp op = definition(
      "SUPEROP 0 (INT SEGDES FLOAT) (SELECT FLOAT (< FLOAT $2 (CONST FLOAT 1.0)) (* FLOAT $2 $2) "
      "(I_TO_F (INDEX $0 (CONST INT 2) $1)))");
  const std::uint32_t i_to_f = static_cast<std::uint32_t>(op.nodes.size() - 2);
  const vcode::SuperOpStage part = vcode::subtree_definition(op, i_to_f);
  CHECK(vcode::superop_text(part.op) ==
        "SUPEROP 0 (INT SEGDES) (I_TO_F (INDEX $0 (CONST INT 2) $1))");
  CHECK(part.inputs == std::vector<std::uint32_t>{0, 1});
}

TEST_CASE("the max_index shape is recognised, and only it", "[superop][stages]") {
  SECTION("NESL's max_index") {
    const auto shape = vcode::arg_reduce_shape(definition(kMaxIndex));
    REQUIRE(shape);
    CHECK(shape->extreme == vcode::Op::MaxReduce);
    CHECK(shape->fold == vcode::Op::MinReduce);
    CHECK(shape->type == vcode::TypeKeyword::Float);
    CHECK(shape->segdes == 1);
  }
  SECTION("INT, the extreme on the right of =, an expression, a constant elsewhere") {
    const auto shape = vcode::arg_reduce_shape(definition(
        "SUPEROP 0 (INT SEGDES INT) (MAX_REDUCE INT (SELECT INT (= INT (AND INT $0 (CONST INT "
        "3)) (DIST INT (MIN_REDUCE INT (AND INT $0 (CONST INT 3)) $1) $1)) (INDEX $2 (CONST INT "
        "-3) $1) (CONST INT 7)) $1)"));
    REQUIRE(shape);
    CHECK(shape->extreme == vcode::Op::MinReduce);
    CHECK(shape->fold == vcode::Op::MaxReduce);
    CHECK(shape->type == vcode::TypeKeyword::Int);
  }
  const std::vector<std::string> others = {
      // compared with another vector than the one reduced
      "SUPEROP 0 (FLOAT SEGDES FLOAT) (MIN_REDUCE INT (SELECT INT (= FLOAT (DIST FLOAT "
      "(MAX_REDUCE FLOAT $0 $1) $1) $2) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT "
      "(CONST INT 9) $1)) $1)",
      // a sum, not an extreme
      "SUPEROP 0 (INT SEGDES) (MIN_REDUCE INT (SELECT INT (= INT (DIST INT (+_REDUCE INT $0 $1) "
      "$1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (CONST INT 9)) $1)",
      // a sum of the positions
      "SUPEROP 0 (INT SEGDES) (+_REDUCE INT (SELECT INT (= INT (DIST INT (MAX_REDUCE INT $0 $1) "
      "$1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (CONST INT 9)) $1)",
      // a trapping division in what is reduced
      "SUPEROP 0 (INT SEGDES) (MIN_REDUCE INT (SELECT INT (= INT (DIST INT (MAX_REDUCE INT (/ INT "
      "$0 (CONST INT 3)) $1) $1) (/ INT $0 (CONST INT 3))) (INDEX (CONST INT 0) (CONST INT 1) $1) "
      "(CONST INT 9)) $1)",
      // not the positions where they are equal
      "SUPEROP 0 (INT SEGDES) (MIN_REDUCE INT (SELECT INT (= INT (DIST INT (MAX_REDUCE INT $0 $1) "
      "$1) $0) $0 (CONST INT 9)) $1)",
      "SUPEROP 0 (INT SEGDES) (MIN_REDUCE INT (SELECT INT (!= INT (DIST INT (MAX_REDUCE INT $0 $1) "
      "$1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (CONST INT 9)) $1)",
      // no nested reduction
      "SUPEROP 0 (INT SEGDES INT) (MIN_REDUCE INT (SELECT INT (= INT (DIST INT $2 $1) $0) (INDEX "
      "(CONST INT 0) (CONST INT 1) $1) (CONST INT 9)) $1)",
  };
  for (const std::string& text : others) {
    INFO(text);
    CHECK_FALSE(vcode::arg_reduce_shape(definition(text)));
  }
}
