// vcode::analyze: the one analysis of a superoperator every evaluator plans from (node roles, how
// operands are read, the root, the domain's source, division traps).
#include <catch2/catch.hpp>

#include "vcode/parser.hpp"
#include "vcode/superop_analysis.hpp"
#include "vcode/superop_check.hpp"

using vcode::NodeRole;
using vcode::Op;
using vcode::RootKind;
using vcode::TypeKeyword;

namespace {

vcode::SuperOp superop(const std::string& definition) {
  auto program = vcode::parse_program(definition + "\nFUNC MAIN\nFUSED 0\nRET\n", "test.fcode");
  REQUIRE(program.superops.size() == 1);
  return program.superops[0];
}

using Roles = std::vector<NodeRole>;

}  // namespace

TEST_CASE("an elementwise root: operands and constants are read at every element",
          "[superop][analysis]") {
  // nodes: $0 $1 CONST * +
  auto a = vcode::analyze(superop("SUPEROP 0 (INT INT) (+ INT $0 (* INT $1 (CONST INT 2)))"));
  CHECK(a.root_kind == RootKind::Elementwise);
  CHECK_FALSE(a.folds());
  CHECK(a.values_node == 4);
  CHECK(a.values_type == TypeKeyword::Int);
  CHECK(a.result_type == TypeKeyword::Int);
  CHECK(a.roles == Roles{NodeRole::Element, NodeRole::Element, NodeRole::Constant,
                         NodeRole::Element, NodeRole::Element});
  CHECK(a.at_element(2));
  REQUIRE(a.operands.size() == 2);
  CHECK(a.operands[0].elementwise);
  CHECK(a.operands[1].elementwise);
  CHECK(a.domain_operand == 0);
  CHECK_FALSE(a.domain_is_total);
  CHECK(a.segment_of_needed == std::vector<bool>{false, false});
  CHECK_FALSE(a.divides);
}

TEST_CASE("a reduce root folds its input; DIST leaves are read per segment",
          "[superop][analysis]") {
  // nodes: $0 $1 $2 DIST * $2 +_REDUCE
  auto a = vcode::analyze(superop(
      "SUPEROP 0 (FLOAT FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT $1 $2)) $2)"));
  CHECK(a.root_kind == RootKind::Reduce);
  CHECK(a.folds());
  CHECK(a.root_op == Op::PlusReduce);
  CHECK(a.root_segdes == 2);
  CHECK(a.values_node == 4);
  CHECK(a.values_type == TypeKeyword::Float);
  CHECK(a.roles == Roles{NodeRole::Element, NodeRole::SegmentLeaf, NodeRole::Descriptor,
                         NodeRole::Element, NodeRole::Element, NodeRole::Descriptor,
                         NodeRole::Fold});
  CHECK_FALSE(a.at_element(1));
  CHECK(a.operands[1].per_segment_of == std::vector<std::uint32_t>{2});
  CHECK(a.operands[2].segdes);
  // DIST of an operand finds the segment of j; the fold finds its own segments.
  CHECK(a.segment_of_needed == std::vector<bool>{false, false, true});
  CHECK(a.domain_operand == 0);
  CHECK_FALSE(a.domain_is_total);
}

TEST_CASE("a scan over INDEX of constants takes its domain from the descriptor",
          "[superop][analysis]") {
  // nodes: CONST CONST $0 INDEX $0 *_SCAN
  auto a = vcode::analyze(
      superop("SUPEROP 0 (SEGDES) (*_SCAN INT (INDEX (CONST INT 1) (CONST INT 1) $0) $0)"));
  CHECK(a.root_kind == RootKind::Scan);
  CHECK(a.root_op == Op::MulScan);
  CHECK(a.values_node == 3);
  CHECK(a.roles == Roles{NodeRole::SegmentLeaf, NodeRole::SegmentLeaf, NodeRole::Descriptor,
                         NodeRole::Element, NodeRole::Descriptor, NodeRole::Fold});
  CHECK(a.domain_is_total);
  CHECK(a.domain_operand == 0);
  CHECK(a.segment_of_needed == std::vector<bool>{true});
}

TEST_CASE("DIST of a constant needs no segment search", "[superop][analysis]") {
  auto a = vcode::analyze(
      superop("SUPEROP 0 (SEGDES) (+_REDUCE INT (DIST INT (CONST INT 2) $0) $0)"));
  CHECK(a.roles[0] == NodeRole::SegmentLeaf);
  CHECK(a.segment_of_needed == std::vector<bool>{false});
}

TEST_CASE("a bare operand or constant as the fold's input", "[superop][analysis]") {
  auto bare = vcode::analyze(superop("SUPEROP 0 (INT) $0"));
  CHECK(bare.values_node == 0);
  CHECK(bare.roles == Roles{NodeRole::Element});
  CHECK(bare.operands[0].elementwise);
  auto constant = vcode::analyze(superop("SUPEROP 0 (SEGDES) (+_REDUCE INT (CONST INT 2) $0)"));
  CHECK(constant.roles == Roles{NodeRole::Constant, NodeRole::Descriptor, NodeRole::Fold});
  CHECK(constant.domain_is_total);
}

TEST_CASE("INT division and remainder are noted as traps, FLOAT division is not",
          "[superop][analysis]") {
  CHECK(vcode::analyze(superop("SUPEROP 0 (INT INT) (/ INT $0 $1)")).divides);
  CHECK(vcode::analyze(superop("SUPEROP 0 (INT INT) (+ INT (% $0 $1) $0)")).divides);
  CHECK_FALSE(vcode::analyze(superop("SUPEROP 0 (FLOAT FLOAT) (/ FLOAT $0 $1)")).divides);
}

TEST_CASE("a node shared in memory takes its strongest role", "[superop][analysis]") {
  // (+ INT $0 (DIST INT $0 $1)) with one $0 node used both at j and as the DIST value: the
  // operand is then read at j (and, per segment, through its data).
  auto op = superop("SUPEROP 0 (INT SEGDES) (+ INT $0 (DIST INT $0 $1))");
  // nodes: $0 $0 $1 DIST +; make DIST read node 0
  op.nodes[3].args[0] = 0;
  auto a = vcode::analyze(op);
  CHECK(a.roles[0] == NodeRole::Element);
  CHECK(a.roles[1] == NodeRole::Unused);
}

TEST_CASE("a value written at each of its uses is computed once: same_as names its first copy",
          "[superop][analysis]") {
  // nodes: 0 $0  1 $1  2 /  3 LOG  4 $0  5 $1  6 /  7 LOG  8 *  9 $0  10 $1  11 -  12 +
  auto a = vcode::analyze(superop(
      "SUPEROP 0 (FLOAT FLOAT) (+ FLOAT (* FLOAT (LOG (/ FLOAT $0 $1)) (LOG (/ FLOAT $0 $1)))"
      " (- FLOAT $0 $1))"));
  using Nodes = std::vector<std::uint32_t>;
  CHECK(a.same_as == Nodes{0, 1, 2, 3, 0, 1, 2, 3, 8, 0, 1, 11, 12});
  CHECK(a.invariant == std::vector<bool>(13, false));
}

TEST_CASE("constants, DISTs of constants and ops on them are invariant; a division never is",
          "[superop][analysis]") {
  // nodes: 0 CONST 3  1 $0  2 DIST  3 I_TO_F  4 EXP  5 $1  6 *  7 CONST 1  8 $0  9 DIST
  //        10 CONST 0  11 $0  12 DIST  13 /  14 I_TO_F  15 +
  auto a = vcode::analyze(superop(
      "SUPEROP 0 (SEGDES FLOAT) (+ FLOAT (* FLOAT (EXP (I_TO_F (DIST INT (CONST INT 3) $0))) $1)"
      " (I_TO_F (/ INT (DIST INT (CONST INT 1) $0) (DIST INT (CONST INT 0) $0))))"));
  REQUIRE(a.invariant.size() == 16);
  CHECK(a.invariant[2]);   // DIST of a constant
  CHECK(a.invariant[3]);   // I_TO_F of it
  CHECK(a.invariant[4]);   // EXP of that
  CHECK_FALSE(a.invariant[5]);  // an operand
  CHECK_FALSE(a.invariant[6]);
  CHECK(a.invariant[9]);
  CHECK(a.invariant[12]);
  CHECK_FALSE(a.invariant[13]);  // INT / can trap: evaluated at each element, where it traps
  CHECK_FALSE(a.invariant[14]);
  CHECK_FALSE(a.invariant[15]);
  CHECK(a.divides);
  // Descriptor operands and DIST leaves are not evaluated at elements: never invariant.
  CHECK_FALSE(a.invariant[0]);
  CHECK_FALSE(a.invariant[1]);
}

TEST_CASE("DISTs of equal constants are one value; 0.0 and -0.0 are not", "[superop][analysis]") {
  // nodes: 0 CONST 0.0  1 $0  2 DIST  3 CONST 0.0  4 $0  5 DIST  6 CONST -0.0  7 $0  8 DIST
  //        9 +  10 +
  auto a = vcode::analyze(superop(
      "SUPEROP 0 (SEGDES) (+ FLOAT (+ FLOAT (DIST FLOAT (CONST FLOAT 0.0) $0)"
      " (DIST FLOAT (CONST FLOAT 0.0) $0)) (DIST FLOAT (CONST FLOAT -0.0) $0))"));
  REQUIRE(a.same_as.size() == 11);
  CHECK(a.same_as[5] == 2);
  CHECK(a.same_as[8] == 8);
  CHECK(a.invariant[9]);
  CHECK(a.invariant[10]);
}

TEST_CASE("DISTs of operands and ops on them are uniform when every descriptor has one segment",
          "[superop][analysis]") {
  // nodes: 0 $0  1 $1  2 DIST  3 LOG  4 $2  5 I_TO_F  6 +  7 $2  8 CONST 0  9 $1  10 DIST  11 /
  //        12 I_TO_F  13 +
  auto a = vcode::analyze(superop(
      "SUPEROP 0 (FLOAT SEGDES INT) (+ FLOAT (+ FLOAT (LOG (DIST FLOAT $0 $1)) (I_TO_F $2))"
      " (I_TO_F (/ INT $2 (DIST INT (CONST INT 0) $1))))"));
  REQUIRE(a.uniform_if_one_segment.size() == a.invariant.size());
  for (std::size_t i = 0; i < a.invariant.size(); ++i)
    if (a.invariant[i]) CHECK(a.uniform_if_one_segment[i]);
  CHECK(a.uniform_if_one_segment[2]);        // DIST of an operand
  CHECK_FALSE(a.invariant[2]);
  CHECK(a.uniform_if_one_segment[3]);        // LOG of it
  CHECK_FALSE(a.uniform_if_one_segment[4]);  // an elementwise operand
  CHECK(a.uniform_if_one_segment[10]);       // DIST of a constant (invariant too)
  CHECK_FALSE(a.uniform_if_one_segment[11]);  // INT / can trap
}

// Gather nodes are made in memory only (cvl-cpu's pending BPERMUTE results): $0 (GATHER INT $1
// (+ INT $0 $0)) (* INT ...) over INT operands.
TEST_CASE("a gather reads its source at positions, and no FCODE may hold one",
          "[superop][analysis]") {
  using Kind = vcode::SuperOpNode::Kind;
  vcode::SuperOp op;
  op.operands = {TypeKeyword::Int, TypeKeyword::Int};
  auto add = [&](Kind kind, Op o, std::uint8_t arity, std::uint32_t a0, std::uint32_t a1,
                 std::uint32_t operand = 0) {
    vcode::SuperOpNode n;
    n.kind = kind;
    n.op = o;
    n.arity = arity;
    n.args[0] = a0;
    n.args[1] = a1;
    n.operand = operand;
    op.nodes.push_back(n);
  };
  add(Kind::Operand, Op::Add, 0, 0, 0, 0);          // 0: $0
  add(Kind::Elementwise, Op::Add, 2, 0, 0);         // 1: positions
  add(Kind::Operand, Op::Add, 0, 0, 0, 1);          // 2: $1, the source
  add(Kind::Gather, Op::BPermute, 2, 2, 1);         // 3
  add(Kind::Elementwise, Op::Mul, 2, 3, 0);         // 4
  const auto a = vcode::analyze(op);
  CHECK(a.roles == Roles{NodeRole::Element, NodeRole::Element, NodeRole::Gathered,
                         NodeRole::Element, NodeRole::Element});
  REQUIRE(a.operands.size() == 2);
  CHECK(a.operands[0].elementwise);
  CHECK_FALSE(a.operands[0].gathered);
  CHECK(a.operands[1].gathered);
  CHECK_FALSE(a.operands[1].elementwise);  // its length is free
  CHECK(a.domain_operand == 0);
  CHECK_FALSE(a.invariant[3]);
  std::vector<vcode::Diagnostic> errors;
  vcode::check_superop(op, {}, errors);
  REQUIRE_FALSE(errors.empty());
  CHECK(errors[0].message.find("run time only") != std::string::npos);
}

TEST_CASE("outputs: nodes the root does not read are made at every element when asked for",
          "[superop][analysis]") {
  using Kind = vcode::SuperOpNode::Kind;
  // As cvl-cpu builds a pass over several pending results: $0 $1 (* $0 $1) (- $0 $1) (+ $0 $1),
  // the root reading neither product nor difference.
  vcode::SuperOp op;
  op.operands = {TypeKeyword::Int, TypeKeyword::Int};
  auto operand = [](std::uint32_t k) {
    vcode::SuperOpNode n;
    n.kind = Kind::Operand;
    n.operand = k;
    n.result = TypeKeyword::Int;
    return n;
  };
  auto binary = [](Op o) {
    vcode::SuperOpNode n;
    n.kind = Kind::Elementwise;
    n.op = o;
    n.type = n.result = TypeKeyword::Int;
    n.arity = 2;
    n.args[0] = 0;
    n.args[1] = 1;
    return n;
  };
  op.nodes = {operand(0), operand(1), binary(Op::Mul), binary(Op::Sub), binary(Op::Add)};
  const auto alone = vcode::analyze(op);
  CHECK(alone.roles[2] == NodeRole::Unused);
  CHECK(alone.roles[3] == NodeRole::Unused);
  const std::uint32_t product = 2;
  const auto with_output = vcode::analyze(op, std::span(&product, 1));
  CHECK(with_output.roles == Roles{NodeRole::Element, NodeRole::Element, NodeRole::Element,
                                   NodeRole::Unused, NodeRole::Element});
  CHECK(with_output.values_node == 4);
}
