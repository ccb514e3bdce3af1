#include "fopt/op_facts.hpp"

namespace fopt {

using vcode::Family;
using vcode::Op;

int fixed_arg_count(Op op) { return static_cast<int>(vcode::info(op).args.size()); }
int fixed_result_count(Op op) { return static_cast<int>(vcode::info(op).results.size()); }

bool has_effect(Op op) {
  switch (vcode::info(op).family) {
    case Family::Random:
    case Family::Io:
      return true;
    default:
      break;
  }
  return op == Op::Exit || op == Op::Pair || op == Op::Unpair;
}

bool is_elementwise(Op op) { return vcode::info(op).family == Family::Elementwise; }

bool never_fails(Op op) {
  if (op == Op::Const || op == Op::Length || op == Op::Lengths) return true;
  return is_elementwise(op) && fixed_arg_count(op) == 1;
}

bool is_int_constant(const Stmt* s, std::int32_t value) {
  return is_op(s, Op::Const) && s->constant.type == vcode::TypeKeyword::Int &&
         !s->constant.stream_name && s->constant.ints.size() == 1 && s->constant.ints[0] == value;
}

bool is_int_division(const Stmt& s) {
  return s.kind == StmtKind::Op &&
         vcode::elementwise_can_trap(s.op, s.type.value_or(vcode::implied_type(s.op)));
}

bool fails_only_on_lengths(const Stmt& s) {
  if (s.kind != StmtKind::Op || has_effect(s.op)) return false;
  switch (vcode::info(s.op).family) {
    case Family::Elementwise:
      return !is_int_division(s);
    case Family::Scan:
    case Family::Reduce:
      return true;
    default:
      return s.op == Op::Dist || s.op == Op::Index || s.op == Op::Pack;
  }
}

namespace {
// The type of an ops.def letter; G without a type keyword or an implied type is unknown.
VarType letter_type(char letter, const std::optional<vcode::TypeKeyword>& type, Op op) {
  if (letter == 'G' && !type && vcode::info(op).implied == vcode::Implied::None)
    return VarType::Unknown;
  const auto keyword = vcode::letter_type(letter, type.value_or(vcode::implied_type(op)));
  return keyword ? var_type_of(*keyword) : VarType::Unknown;
}
}  // namespace

VarType result_type(const Stmt& stmt, std::size_t index) {
  const auto& results = vcode::info(stmt.op).results;
  if (index >= results.size()) return VarType::Unknown;
  return letter_type(results[index], stmt.type, stmt.op);
}

VarType operand_type(const Stmt& stmt, std::size_t index) {
  const auto& args = vcode::info(stmt.op).args;
  if (index >= args.size()) return VarType::Unknown;
  return letter_type(args[index], stmt.type, stmt.op);
}

}  // namespace fopt
