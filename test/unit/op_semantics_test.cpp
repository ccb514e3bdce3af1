// The ops.def columns and the shared semantics agree: every elementwise op has a cvl_sem rule
// for every element type it takes, with the operand and result types its letters give; every
// scan and reduction has a combiner with an identity; the derived facts (pairs, costs, permute
// shapes) are what the spec says.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "cvl/op_dispatch.hpp"
#include "ops_def_counts.hpp"

namespace {

using vcode::Op;
using cvl::Type;

constexpr Type kAllTypes[] = {Type::Int, Type::Float, Type::Bool};

// Instantiates the visitor for (op, t) and checks the rule's signature at compile time.
template <std::size_t... k, class Sig, class Sem>
constexpr bool applies(std::index_sequence<k...>, Sig*, Sem*) {
  return std::is_same_v<decltype(Sem::apply(std::declval<typename Sig::template In<k>>()...)),
                        typename Sig::Out>;
}

}  // namespace

TEST_CASE("every elementwise op has a cvl_sem rule for each type it takes", "[ops][semantics]") {
  int rules = 0;
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    const auto op = static_cast<Op>(i);
    if (vcode::info(op).family != vcode::Family::Elementwise) {
      CHECK_THROWS_AS(cvl::visit_elementwise(op, Type::Int, []<Op, class, Type>() { return 0; }),
                      cvl::InternalError);
      continue;
    }
    for (Type t : kAllTypes) {
      if (!cvl::takes_type(op, t)) {
        CHECK_THROWS_WITH(
            cvl::visit_elementwise(op, t, []<Op, class, Type>() { return 0; }),
            Catch::Contains("is not defined on"));
        continue;
      }
      const bool ok = cvl::visit_elementwise(op, t, []<Op kOp, class Sem, Type kType>() {
        using Sig = cvl::Signature<kOp, kType>;
        static_assert(applies(std::make_index_sequence<Sig::arity>{}, static_cast<Sig*>(nullptr),
                              static_cast<Sem*>(nullptr)),
                      "a cvl_sem rule does not match its ops.def letters");
        return kOp != Op::Fused;
      });
      CHECK(ok);
      ++rules;
    }
  }
  CHECK(rules == nesl_test::elementwise_op_type_pairs());
}

TEST_CASE("scans and reductions pair by combiner, each with its identity", "[ops][semantics]") {
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    const auto op = static_cast<Op>(i);
    if (vcode::info(op).family != vcode::Family::Reduce) continue;
    const Op scan = vcode::paired_scan(op);
    CHECK(vcode::info(scan).family == vcode::Family::Scan);
    CHECK(vcode::info(scan).sem == vcode::info(op).sem);
    CHECK(vcode::info(scan).type_set == vcode::info(op).type_set);
  }
  CHECK(vcode::paired_scan(Op::MaxReduce) == Op::MaxScan);
  auto identity = [](Op op, Type t) {
    return cvl::visit_combiner(op, t, []<Op, class Sem, Type kType>() -> double {
      return static_cast<double>(Sem::identity(cvl::host_t<kType>{}));
    });
  };
  CHECK(identity(Op::PlusScan, Type::Int) == 0);
  CHECK(identity(Op::MulReduce, Type::Float) == 1.0);
  CHECK(identity(Op::MaxScan, Type::Int) == std::numeric_limits<std::int32_t>::min());
  CHECK(identity(Op::MinReduce, Type::Float) == static_cast<double>(1.0e36f));
  CHECK(identity(Op::AndScan, Type::Int) == -1);
  CHECK(identity(Op::AndReduce, Type::Bool) == 1);
  CHECK_THROWS_WITH(identity(Op::AndScan, Type::Float), Catch::Contains("is not defined on"));
}

TEST_CASE("ops.def Cost, Shape and letters drive the derived facts", "[ops]") {
  CHECK(vcode::info(Op::Exp).cost == vcode::Cost::Compute);
  CHECK(vcode::info(Op::Add).cost == vcode::Cost::Memory);
  CHECK(vcode::info(Op::BPermute).shape == vcode::Shape::Gather);
  CHECK(vcode::info(Op::DFPermute).shape == vcode::Shape::Scatter);
  CHECK(vcode::permute_has_flags(Op::BFPermute));
  CHECK_FALSE(vcode::permute_has_flags(Op::DPermute));
  CHECK(vcode::permute_has_defaults(Op::DFPermute));
  CHECK_FALSE(vcode::permute_has_defaults(Op::Permute));
  using vcode::TypeKeyword;
  CHECK(vcode::result_type_of(Op::Less, TypeKeyword::Float) == TypeKeyword::Bool);
  CHECK(vcode::operand_type(Op::Select, TypeKeyword::Float, 0) == TypeKeyword::Bool);
  CHECK(vcode::implied_type(Op::Floor) == TypeKeyword::Float);
}

TEST_CASE("the shared scalar rules keep the reference's edge cases", "[semantics]") {
  using namespace cvl_sem;
  CHECK(Add::apply(CVL_INT_MAX, 1) == CVL_INT_MIN);
  CHECK(Div::traps(CVL_INT_MIN, -1));
  CHECK(Div::traps(5, 0));
  // Vector lanes compute trapping divisions before the trap check: defined, never UB (found by
  // the libFuzzer target under UBSan: a float-to-int conversion of inf).
  CHECK(Div::apply(5, 0) == CVL_INT_MIN);
  CHECK(Div::apply(0, 0) == CVL_INT_MIN);
  CHECK(Div::apply(CVL_INT_MIN, -1) == CVL_INT_MIN);
  CHECK(Mod::apply(CVL_INT_MIN, -1) == 0);
  CHECK(Div::apply(-7, 2) == -3);
  CHECK(Mod::apply(-7, 2) == -1);
  CHECK(Trunc::apply(std::nan("")) == CVL_INT_MIN);
  CHECK(Floor::apply(-0.5) == -1);
  CHECK(Ceil::apply(2147483647.5) == CVL_INT_MIN);
  CHECK(std::signbit(Add::apply(-0.0, -0.0)));
  CHECK(LShift::apply(1, 33) == 2);
  CHECK(index_value(CVL_INT_MAX, 1, 1) == CVL_INT_MIN);
  CHECK(std::string(trap_message(trap_word(3, 0))) == "division by zero");
  CHECK(std::string(trap_message(trap_word(3, -1))) ==
        "integer overflow in division (-2147483648 / -1)");
  CHECK(trap_word(2, -1) < trap_word(3, 0));  // the first trapping element wins
  CHECK(float_rank_key(-1.0) < float_rank_key(-0.0));
  CHECK(float_rank_key(-0.0) < float_rank_key(0.0));
  CHECK(int_rank_key(-1) < int_rank_key(0));
}
