// cvl/shape_contract.hpp: the shape rules backends assert in debug builds name the first rule a
// call breaks, and accept what the interpreter lets through. (The rules need only the handles'
// types and lengths, so no backend is involved.)
#include <catch2/catch.hpp>

#include "cvl/shape_contract.hpp"
#include "vcode/parser.hpp"

using cvl::Type;
using vcode::Op;
namespace contract = cvl::contract;

namespace {

cvl::Vector vec(Type type, std::size_t length) { return {type, length, nullptr}; }
cvl::Segdes sd(std::size_t segments, std::size_t total) { return {segments, total, nullptr}; }

}  // namespace

TEST_CASE("elementwise operands: count, equal lengths, types from ops.def", "[contract]") {
  std::vector<cvl::Vector> ok{vec(Type::Int, 3), vec(Type::Int, 3)};
  CHECK(contract::elementwise(Op::Add, Type::Int, ok).empty());
  std::vector<cvl::Vector> short_one{vec(Type::Int, 3), vec(Type::Int, 2)};
  CHECK(contract::elementwise(Op::Add, Type::Int, short_one) ==
        "+: operand has length 2, expected 3");
  std::vector<cvl::Vector> select{vec(Type::Int, 3), vec(Type::Float, 3), vec(Type::Float, 3)};
  CHECK(contract::elementwise(Op::Select, Type::Float, select) ==
        "SELECT: operand is Int, expected Bool");
  CHECK(contract::elementwise(Op::Add, Type::Int, std::span(ok.data(), 1)) ==
        "+: wrong number of operands");
  CHECK(contract::elementwise(Op::PlusScan, Type::Int, ok) ==
        "+_SCAN: not an elementwise operation");
}

TEST_CASE("segmented operations: the vector is what the descriptor describes", "[contract]") {
  CHECK(contract::segmented(Op::PlusScan, vec(Type::Int, 5), sd(2, 5)).empty());
  CHECK(contract::segmented(Op::MaxReduce, vec(Type::Float, 4), sd(2, 5)) ==
        "MAX_REDUCE: vector has length 4, expected 5");
  CHECK(contract::segmented(Op::RankUp, vec(Type::Bool, 5), sd(2, 5)) ==
        "RANK_UP: is not defined on Bool");
  CHECK(contract::distribute(vec(Type::Int, 2), sd(2, 9)).empty());
  CHECK(contract::distribute(vec(Type::Int, 3), sd(2, 9)) ==
        "DIST: value vector has length 3, expected 2");
  CHECK(contract::index(vec(Type::Int, 2), vec(Type::Float, 2), sd(2, 9)) ==
        "INDEX: stride vector is Float, expected Int");
  CHECK(contract::extract(vec(Type::Int, 9), vec(Type::Int, 2), sd(2, 9)).empty());
  CHECK(contract::replace(vec(Type::Int, 9), vec(Type::Int, 2), vec(Type::Bool, 2), sd(2, 9)) ==
        "REPLACE: value vector is Bool, expected Int");
  CHECK(contract::pack(vec(Type::Int, 9), vec(Type::Bool, 8), sd(2, 9)) ==
        "PACK: flag vector has length 8, expected 9");
  CHECK(contract::make_segdes(vec(Type::Float, 2)) ==
        "MAKE_SEGDES: lengths vector is Float, expected Int");
  CHECK(contract::random(vec(Type::Int, 2)).empty());
  CHECK(contract::download(vec(Type::Int, 4), 1, 3).empty());
  CHECK_FALSE(contract::download(vec(Type::Int, 4), 2, 3).empty());
}

TEST_CASE("permutes: scatters index through the source, gathers through the destination",
          "[contract]") {
  cvl::PermuteOperands gather;
  gather.values = vec(Type::Float, 5);
  gather.indices = vec(Type::Int, 3);
  gather.source_segdes = sd(1, 5);
  gather.dest_segdes = sd(1, 3);
  CHECK(contract::permute(Op::BPermute, gather).empty());
  CHECK(contract::permute(Op::Permute, gather) ==
        "PERMUTE: index vector has length 3, expected 5");
  gather.dest_segdes = sd(2, 3);
  CHECK(contract::permute(Op::BPermute, gather) ==
        "BPERMUTE: source and destination descriptors have different numbers of segments");
}

TEST_CASE("FUSED operands against the definition's length rules", "[contract]") {
  auto program = vcode::parse_program(
      "SUPEROP 0 (FLOAT FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT $1 $2)) $2)\n"
      "FUNC MAIN\nFUSED 0\nRET\n",
      "test.fcode");
  const cvl::PreparedSuperOp op(program.superops[0]);
  std::vector<cvl::FusedOperand> operands(3);
  operands[0].vector = vec(Type::Float, 7);
  operands[1].vector = vec(Type::Float, 2);
  operands[2].segdes = sd(2, 7);
  CHECK(contract::fused(op, operands, 7).empty());
  operands[1].vector = vec(Type::Float, 3);
  CHECK(contract::fused(op, operands, 7) ==
        "FUSED 0: a per-segment operand has length 3, expected 2");
  operands[1].vector = vec(Type::Int, 2);
  CHECK(contract::fused(op, operands, 7) == "FUSED 0: an operand is Int, expected Float");
  operands[1].vector = vec(Type::Float, 2);
  operands[2].segdes = sd(2, 6);
  CHECK(contract::fused(op, operands, 7) ==
        "FUSED 0: a segment descriptor describes 6 elements, the domain has 7");
  CHECK(contract::fused(op, std::span(operands.data(), 2), 7) ==
        "FUSED 0: operands do not match the definition");
}

TEST_CASE("a broken rule is a contract::Violation", "[contract]") {
  CHECK_THROWS_AS(contract::violated("x"), contract::Violation);
  CHECK_THROWS_WITH(contract::violated("DIST: value vector has length 3, expected 2"),
                    "backend contract violated: DIST: value vector has length 3, expected 2");
}
