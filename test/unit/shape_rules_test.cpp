// The shape rules: ops.def's length-rule column read as the VM has always checked it, the whole
// contract of a backend call (cvl/shape_rules.hpp) naming the first rule broken, and the
// CheckingBackend that enforces it around a backend. (The rules need only the handles' types and
// lengths, so the contract functions take handles without storage.)
#include <catch2/catch.hpp>

#include <array>

#include "cvl/checking_backend.hpp"
#include "cvl/shape_rules.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "vcode/length_rules.hpp"
#include "vcode/parser.hpp"

using cvl::Type;
using vcode::LengthRule;
using vcode::Op;
namespace contract = cvl::contract;
using Kind = LengthRule::Kind;

namespace {

cvl::Vector vec(Type type, std::size_t length) { return {type, length, nullptr}; }
cvl::Segdes sd(std::size_t segments, std::size_t total) { return {segments, total, nullptr}; }
contract::Operand of(const cvl::Vector& v) { return {&v, nullptr}; }
contract::Operand of(const cvl::Segdes& s) { return {nullptr, &s}; }

std::vector<LengthRule> rules_of(Op op) {
  const auto rules = vcode::length_rules(op);
  return {rules.begin(), rules.end()};
}

// The rules as the interpreter checked them before they were a column of ops.def, by family
// and letters (spec/VCODE.md section 7): the column must say exactly this.
std::vector<LengthRule> rules_by_family(Op op) {
  const vcode::OpInfo& info = vcode::info(op);
  const auto k = static_cast<std::uint8_t>(info.args.size());
  std::vector<LengthRule> rules;
  switch (info.family) {
    case vcode::Family::Elementwise:
      for (std::uint8_t a = 1; a < k; ++a) rules.push_back({Kind::SameLength, 0, a});
      break;
    case vcode::Family::Scan:
    case vcode::Family::Reduce:
    case vcode::Family::Rank:
      rules.push_back({Kind::Describes, 1, 0});
      break;
    case vcode::Family::Permute: {
      const bool gather = info.shape == vcode::Shape::Gather;
      std::uint8_t next = 2;
      const std::uint8_t flags = vcode::permute_has_flags(op) ? next++ : 0;
      const std::uint8_t defaults = vcode::permute_has_defaults(op) ? next++ : 0;
      const std::uint8_t source = next++;
      const std::uint8_t dest = next < k ? next : 0;
      if (!gather) rules.push_back({Kind::SameLength, 0, 1});
      if (flags) rules.push_back({Kind::SameLength, static_cast<std::uint8_t>(gather ? 1 : 0), flags});
      rules.push_back({Kind::Describes, source, 0});
      if (gather) rules.push_back({Kind::Describes, dest, 1});
      if (defaults) rules.push_back({Kind::Describes, dest, defaults});
      if (dest) rules.push_back({Kind::SameSegments, source, dest});
      break;
    }
    case vcode::Family::Vector:
      if (op == Op::Extract) rules = {{Kind::Describes, 2, 0}, {Kind::OnePerSegment, 1, 2}};
      if (op == Op::Replace)
        rules = {{Kind::SameLength, 1, 2}, {Kind::Describes, 3, 0}, {Kind::OnePerSegment, 1, 3}};
      if (op == Op::Dist) rules = {{Kind::OnePerSegment, 0, 1}};
      if (op == Op::Index) rules = {{Kind::SameLength, 0, 1}, {Kind::OnePerSegment, 0, 2}};
      break;
    case vcode::Family::Pack:
      rules = {{Kind::SameLength, 0, 1}, {Kind::Describes, 2, 0}};
      break;
    default:
      break;
  }
  return rules;
}

}  // namespace

TEST_CASE("ops.def's length rules are those of each family, for every opcode", "[contract]") {
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    const Op op = static_cast<Op>(i);
    INFO(vcode::spelling(op));
    CHECK(rules_of(op) == rules_by_family(op));
  }
}

TEST_CASE("ops.def's length rules: the checks of spec/VCODE.md section 7, in order", "[contract]") {
  CHECK(rules_of(Op::Add) == std::vector<LengthRule>{{Kind::SameLength, 0, 1}});
  CHECK(rules_of(Op::Select) ==
        std::vector<LengthRule>{{Kind::SameLength, 0, 1}, {Kind::SameLength, 0, 2}});
  CHECK(rules_of(Op::Not).empty());
  CHECK(rules_of(Op::MaxReduce) == std::vector<LengthRule>{{Kind::Describes, 1, 0}});
  CHECK(rules_of(Op::Replace) == std::vector<LengthRule>{{Kind::SameLength, 1, 2},
                                                         {Kind::Describes, 3, 0},
                                                         {Kind::OnePerSegment, 1, 3}});
  // Scatters index destinations (v, i, f agree), gathers sources (i and f agree).
  CHECK(rules_of(Op::DFPermute) == std::vector<LengthRule>{{Kind::SameLength, 0, 1},
                                                           {Kind::SameLength, 0, 2},
                                                           {Kind::Describes, 4, 0},
                                                           {Kind::Describes, 5, 3},
                                                           {Kind::SameSegments, 4, 5}});
  CHECK(rules_of(Op::BFPermute) == std::vector<LengthRule>{{Kind::SameLength, 1, 2},
                                                           {Kind::Describes, 3, 0},
                                                           {Kind::Describes, 4, 1},
                                                           {Kind::SameSegments, 3, 4}});
  // Every rule names operands the opcode has, of the kinds its letters give.
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    const Op op = static_cast<Op>(i);
    const std::string_view args = vcode::info(op).args;
    INFO(vcode::spelling(op));
    for (const LengthRule& rule : vcode::length_rules(op)) {
      REQUIRE(rule.a < args.size());
      REQUIRE(rule.b < args.size());
      CHECK((args[rule.a] == 'S') == (vcode::first_measure(rule.kind) != vcode::Measure::Length));
      CHECK((args[rule.b] == 'S') == (vcode::second_measure(rule.kind) != vcode::Measure::Length));
    }
  }
}

TEST_CASE("a broken length rule says what the interpreter has always said", "[contract]") {
  CHECK(vcode::length_rule_message({Kind::SameLength, 0, 1}, 3, 2) ==
        "length mismatch between args 0(3) and 1(2)");
  CHECK(vcode::length_rule_message({Kind::Describes, 2, 0}, 5, 4) ==
        "args 0 and 2 are incompatible: the segment descriptor describes 5 elements, the vector "
        "has 4");
  CHECK(vcode::length_rule_message({Kind::OnePerSegment, 1, 2}, 3, 2) ==
        "args 1 and 2 are incompatible: 3 elements for 2 segments");
  CHECK(vcode::length_rule_message({Kind::SameSegments, 3, 4}, 1, 2) ==
        "args 3 and 4 are incompatible: 1 and 2 segments");
}

TEST_CASE("a backend call's contract: number, kinds, types, type set, length rules", "[contract]") {
  const cvl::Vector a = vec(Type::Int, 3), b = vec(Type::Int, 3), short_one = vec(Type::Int, 2);
  CHECK(contract::problem(Op::Add, Type::Int, std::array{of(a), of(b)}).empty());
  CHECK(contract::problem(Op::Add, Type::Int, std::array{of(a), of(short_one)}) ==
        "+: length mismatch between args 0(3) and 1(2)");
  CHECK(contract::problem(Op::Add, Type::Int, std::array{of(a)}) == "+: 1 operands, expected 2");
  const cvl::Vector floats = vec(Type::Float, 3);
  CHECK(contract::problem(Op::Select, Type::Float, std::array{of(a), of(floats), of(floats)}) ==
        "SELECT: operand 0 is Int, expected Bool");
  const cvl::Vector bools = vec(Type::Bool, 5);
  const cvl::Segdes two = sd(2, 5);
  CHECK(contract::problem(Op::RankUp, Type::Bool, std::array{of(bools), of(two)}) ==
        "RANK_UP: is not defined on Bool");
  CHECK(contract::problem(Op::Dist, Type::Int, std::array{of(a), of(two)}) ==
        "DIST: args 0 and 1 are incompatible: 3 elements for 2 segments");
  CHECK(contract::problem(Op::Dist, Type::Int, std::array{of(two), of(a)}) ==
        "DIST: operand 0 is a segment descriptor, expected a vector");
  // A count still pending on the device breaks no rule: the interpreter checks it later.
  struct Never final : cvl::PendingCount {
    Never() : PendingCount(100) {}
    void wait() override { FAIL("the contract waited for a pending count"); }
  };
  const cvl::Vector pending{Type::Int, cvl::Length(std::make_shared<Never>()), nullptr};
  CHECK(contract::problem(Op::Add, Type::Int, std::array{of(a), of(pending)}).empty());
  CHECK(contract::download_problem(vec(Type::Int, 4), 1, 3).empty());
  CHECK_FALSE(contract::download_problem(vec(Type::Int, 4), 2, 3).empty());
}

TEST_CASE("FUSED operands against the length rules of the definition's analysis", "[contract]") {
  auto program = vcode::parse_program(
      "SUPEROP 0 (FLOAT FLOAT SEGDES) (+_REDUCE FLOAT (* FLOAT $0 (DIST FLOAT $1 $2)) $2)\n"
      "FUNC MAIN\nFUSED 0\nRET\n",
      "test.fcode");
  const cvl::PreparedSuperOp op(program.superops[0]);
  CHECK(vcode::length_rules(op.analysis) == std::vector<LengthRule>{{Kind::SameLength, 0, 0},
                                                                    {Kind::OnePerSegment, 1, 2},
                                                                    {Kind::Describes, 2, 0}});
  std::vector<cvl::FusedOperand> operands(3);
  operands[0].vector = vec(Type::Float, 7);
  operands[1].vector = vec(Type::Float, 2);
  operands[2].segdes = sd(2, 7);
  CHECK(contract::fused_problem(op, operands, 7).empty());
  operands[1].vector = vec(Type::Float, 3);
  CHECK(contract::fused_problem(op, operands, 7) ==
        "FUSED 0: args 1 and 2 are incompatible: 3 elements for 2 segments");
  operands[1].vector = vec(Type::Int, 2);
  CHECK(contract::fused_problem(op, operands, 7) == "FUSED 0: operand 1 is Int, expected Float");
  operands[1].vector = vec(Type::Float, 2);
  operands[2].segdes = sd(2, 6);
  CHECK(contract::fused_problem(op, operands, 7) ==
        "FUSED 0: args 0 and 2 are incompatible: the segment descriptor describes 6 elements, "
        "the vector has 7");
  CHECK(contract::fused_problem(op, operands, 8) ==
        "FUSED 0: the domain is 8 elements, operand 0 gives 7");
  CHECK(contract::fused_problem(op, std::span(operands.data(), 2), 7) ==
        "FUSED 0: operands do not match the definition");
}

TEST_CASE("a CheckingBackend stops a broken call and passes the rest on", "[contract]") {
  auto b = cvl::checked(cvl::make_cpu_backend({1}));
  CHECK(b->name() == "cpu");
  const std::int32_t values[] = {1, 2, 3};
  std::array<cvl::Vector, 2> operands{b->upload(Type::Int, values, 3),
                                      b->upload(Type::Int, values, 2)};
  CHECK_THROWS_WITH(b->elementwise(Op::Add, Type::Int, operands),
                    "backend contract violated: +: length mismatch between args 0(3) and 1(2)");
  CHECK_THROWS_AS(b->elementwise(Op::Add, Type::Int, operands), cvl::InternalError);
  operands[1] = b->upload(Type::Int, values, 3);
  const cvl::Vector sum = b->elementwise(Op::Add, Type::Int, operands);
  std::int32_t out[3] = {};
  b->download(sum, 0, 3, out);
  CHECK(out[2] == 6);
  CHECK_THROWS_AS(b->download(sum, 2, 2, out), cvl::contract::Violation);
  const std::int32_t lengths[] = {2, 1};
  const cvl::Segdes two = b->make_segdes(b->upload(Type::Int, lengths, 2));
  CHECK_THROWS_WITH(b->scan(Op::PlusScan, b->upload(Type::Int, values, 2), two),
                    "backend contract violated: +_SCAN: args 0 and 1 are incompatible: the "
                    "segment descriptor describes 3 elements, the vector has 2");
  CHECK_THROWS_AS(b->scan(Op::PlusReduce, b->upload(Type::Int, values, 3), two),
                  cvl::contract::Violation);
  CHECK(b->speculation() == nullptr);
}
