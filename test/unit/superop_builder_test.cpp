// vcode::SuperOpBuilder (the definitions of cvl-cpu's and cvl-cuda's pending results, built node
// by node) and vcode::generator_size (the walk both libraries' cheap-to-recompute rules share).
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "vcode/superop_builder.hpp"
#include "vcode/superop_generator.hpp"
#include "vcode/superop_print.hpp"

using vcode::Op;
using vcode::SuperOpBuilder;
using vcode::TypeKeyword;
using Kind = vcode::SuperOpNode::Kind;

namespace {

// Stand-ins for a library's vectors: an operand's identity is its address.
const int kFirst = 1;
const int kSecond = 2;
const int kSegments = 3;

// The node of the operand `identity` names, read at each element or not.
std::uint32_t leaf(SuperOpBuilder& b, TypeKeyword kind, const void* identity, bool at_element) {
  return b.operand_node(b.operand_number(kind, identity).k, at_element);
}

// (+_REDUCE FLOAT (* FLOAT a (DIST FLOAT values segments)) segments).
vcode::SuperOp scaled_sum(SuperOpBuilder& b, const void* a, const void* values) {
  const std::uint32_t x = leaf(b, TypeKeyword::Float, a, true);
  const std::uint32_t v = leaf(b, TypeKeyword::Float, values, false);
  const std::uint32_t s = leaf(b, TypeKeyword::Segdes, &kSegments, false);
  const std::uint32_t d = b.distribute(TypeKeyword::Float, v, s);
  const std::uint32_t args[2] = {x, d};
  b.fold(Op::PlusReduce, TypeKeyword::Float, b.elementwise(Op::Mul, TypeKeyword::Float, args), s);
  return b.finish();
}

}  // namespace

TEST_CASE("a built definition reads as the expression it was made from", "[superop][builder]") {
  SuperOpBuilder b;
  const vcode::SuperOp op = scaled_sum(b, &kFirst, &kSecond);
  CHECK(vcode::superop_text(op) ==
        "SUPEROP 0 (FLOAT FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT $1 $2)) $2)");
  // The descriptor, read twice, is one node: $0 $1 $2 DIST * +_REDUCE.
  CHECK(op.nodes.size() == 6);
}

TEST_CASE("one operand read at each element and per segment keeps a node for each role",
          "[superop][builder]") {
  SuperOpBuilder b;
  const vcode::SuperOp op = scaled_sum(b, &kFirst, &kFirst);
  CHECK(vcode::superop_text(op) ==
        "SUPEROP 0 (FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT $0 $1)) $1)");
  CHECK(op.nodes.size() == 6);
  CHECK(vcode::read_at_elements_only(op) ==
        std::vector<bool>{true, false, false, true, true, true});
}

TEST_CASE("each computation is one node however often it is made", "[superop][builder]") {
  SuperOpBuilder b;
  const std::uint32_t x = leaf(b, TypeKeyword::Int, &kFirst, true);
  const std::uint32_t again = leaf(b, TypeKeyword::Int, &kFirst, true);
  CHECK(again == x);
  const std::uint32_t args[2] = {x, again};
  const std::uint32_t square = b.elementwise(Op::Mul, TypeKeyword::Int, args);
  CHECK(b.elementwise(Op::Mul, TypeKeyword::Int, args) == square);
  const std::uint32_t sum_args[2] = {square, square};
  b.elementwise(Op::Add, TypeKeyword::Int, sum_args);
  CHECK(b.size() == 3);
  // finish_at an earlier node: its copy is the root.
  const vcode::SuperOp op = b.finish_at(square);
  CHECK(vcode::superop_text(op) == "SUPEROP 0 (INT) (* INT $0 $0)");
  CHECK(op.nodes.size() == 4);
}

TEST_CASE("a spliced definition is renumbered into the one built, or read through a node",
          "[superop][builder]") {
  SuperOpBuilder inner;
  const std::uint32_t p = leaf(inner, TypeKeyword::Int, &kFirst, true);
  const std::uint32_t q = leaf(inner, TypeKeyword::Int, &kSecond, true);
  const std::uint32_t pq[2] = {p, q};
  inner.elementwise(Op::Sub, TypeKeyword::Int, pq);
  const vcode::SuperOp difference = inner.finish();  // (- INT $0 $1)

  SuperOpBuilder b;
  leaf(b, TypeKeyword::Int, &kSecond, true);
  const std::uint32_t x = leaf(b, TypeKeyword::Int, &kFirst, true);
  const std::uint32_t operand_now[2] = {1, 0};  // inner's $0 is $1 here, its $1 is $0
  const std::uint32_t spliced = b.splice(difference, operand_now);
  CHECK(b.size() == 3);  // the operands were there already
  const std::optional<std::uint32_t> node_now[2] = {std::nullopt, spliced};  // $1 read as that
  const std::uint32_t nested = b.splice(difference, operand_now, node_now);
  const std::uint32_t args[2] = {x, nested};
  b.elementwise(Op::Add, TypeKeyword::Int, args);
  CHECK(vcode::superop_text(b.finish()) ==
        "SUPEROP 0 (INT INT) (+ INT $1 (- INT $1 (- INT $1 $0)))");
}

TEST_CASE("generator_size: what a generator computes, by a library's rule for the rest",
          "[superop][generator]") {
  auto elementwise = [](const vcode::SuperOpNode& n) { return n.kind == Kind::Elementwise; };
  auto nothing = [](const vcode::SuperOpNode&) { return false; };

  // float(INDEX(0, 1, segments)): the constants are free, the INDEX and I_TO_F computed.
  SuperOpBuilder b;
  vcode::SuperOpNode zero;
  zero.kind = Kind::Constant;
  vcode::SuperOpNode one = zero;
  one.int_value = 1;
  const std::uint32_t s = leaf(b, TypeKeyword::Segdes, &kSegments, false);
  const std::uint32_t i = b.index(b.add(zero), b.add(one), s);
  const std::uint32_t arg[1] = {i};
  b.elementwise(Op::IntToFloat, TypeKeyword::Int, arg);
  const vcode::SuperOp floats = b.finish();
  CHECK(vcode::generator_size(floats, elementwise) == 2);
  CHECK(vcode::generator_size(floats, nothing) == std::nullopt);

  // A DIST's values are read per segment: still a generator.
  SuperOpBuilder d;
  const std::uint32_t v = leaf(d, TypeKeyword::Float, &kFirst, false);
  d.distribute(TypeKeyword::Float, v, leaf(d, TypeKeyword::Segdes, &kSegments, false));
  CHECK(vcode::generator_size(d.finish(), nothing) == 1);

  // An operand read at each element: never a generator, whatever the rule.
  SuperOpBuilder reading;
  const vcode::SuperOp scaled = scaled_sum(reading, &kFirst, &kSecond);
  auto everything = [](const vcode::SuperOpNode&) { return true; };
  CHECK(vcode::generator_size(scaled, everything) == std::nullopt);
}
