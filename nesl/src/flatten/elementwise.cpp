#include "flatten/flattener.hpp"

#include "flatten/constants.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {
namespace {

// The operand whose type an opcode's type keyword names: its first G (SELECT's second).
std::size_t typed_operand(Op opcode) {
  const std::size_t at = vcode::info(opcode).args.find('G');
  return at == std::string_view::npos ? 0 : at;
}

}  // namespace

Leaves Flattener::scalar_primitive(const Primitive& p, const Arguments& args) {
  switch (p.kind) {
    case PrimitiveKind::Elementwise: {
      Leaves inputs;
      for (const Leaves& a : args.values) inputs.push_back(a[0]);
      return {op1(p.op, leaf_of(inputs[typed_operand(p.op)]), inputs)};
    }
    case PrimitiveKind::Complement: {
      Leaf leaf = leaf_of(args.first());
      Value both = op1(p.op, leaf, {args.first(), args[1][0]});
      return {op1(Op::Not, leaf, {both})};
    }
    case PrimitiveKind::CompareToZero: {
      Leaf leaf = leaf_of(args.first());
      return {op1(p.op, leaf, {args.first(), everywhere(zero_of(leaf))})};
    }
    case PrimitiveKind::Negate: {
      Leaf leaf = leaf_of(args.first());
      return {op1(Op::Sub, leaf, {everywhere(zero_of(leaf)), args.first()})};
    }
    case PrimitiveKind::Abs: {
      Leaf leaf = leaf_of(args.first());
      Value zero = everywhere(zero_of(leaf));
      Value negative = op1(Op::Less, leaf, {args.first(), zero});
      Value negated = op1(Op::Sub, leaf, {zero, args.first()});
      return {op1(Op::Select, leaf, {negative, negated, args.first()})};
    }
    case PrimitiveKind::Identity: return args[0];
    case PrimitiveKind::CheckedDivide: {
      Leaf leaf = leaf_of(args.first());
      Value divisor = args[1][0];
      if (options_.argument_checks && !known_nonzero(divisor)) {
        Value zero = op1(Op::Equal, leaf, {divisor, everywhere(zero_of(leaf))});
        check(zero, std::string(p.message));
      }
      return {op1(p.op, leaf, {args.first(), divisor})};
    }
    case PrimitiveKind::CheckedSqrt: {
      if (options_.argument_checks) {
        Value negative = op1(Op::Less, Leaf::Float, {args.first(), everywhere(zero_of(Leaf::Float))});
        check(negative, "Sqrt of negative number.");
      }
      return {op1(Op::Sqrt, {args.first()})};
    }
    case PrimitiveKind::Constant: {
      return {everywhere(scalar(p.constant.is_float ? Leaf::Float : Leaf::Int, p.constant.value))};
    }
    case PrimitiveKind::Rand: {
      Leaf leaf = leaf_of(args.first());
      if (options_.argument_checks) {
        Value bad = op1(Op::LessEq, leaf, {args.first(), everywhere(zero_of(leaf))});
        check(bad, "Rand only works with positive numbers.");
      }
      if (leaf == Leaf::Int) return {op1(Op::Rand, {args.first()})};
      // A float draw scales an int draw below 2^30, as the classic does.
      Value scale = everywhere(scalar(Leaf::Int, 1073741824));
      Value draw = op1(Op::IntToFloat, {op1(Op::Rand, {scale})});
      Value fraction = op1(Op::Div, Leaf::Float, {draw, op1(Op::IntToFloat, {scale})});
      return {op1(Op::Mul, Leaf::Float, {args.first(), fraction})};
    }
    case PrimitiveKind::OneLike: {
      Leaf leaf = leaf_of(args.first());
      return {everywhere(scalar(leaf, 1))};
    }
    case PrimitiveKind::ArgCheck: {
      if (options_.argument_checks) check(args.first(), std::string(p.message));
      return {args.first()};
    }
    case PrimitiveKind::Timer: {
      if (p.op == Op::StartTimer) {
        op(Op::StartTimer, {});
        return {everywhere(zero_of(Leaf::Int))};
      }
      // Lifted, the instances run together: each is given the time of the whole step.
      const Value seconds = op1(Op::StopTimer, {});
      if (context_ < 0) return {seconds};
      return {spread(Leaf::Float, seconds, context_)};
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + args.name + " is not a scalar primitive");
}

}  // namespace nesl::flattening
