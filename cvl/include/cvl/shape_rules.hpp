// The shape rules of a backend call: the operands' kinds and types from ops.def's letters and
// type sets, and their length rules (vcode/length_rules.hpp; for FUSED, its analysis's). The VM
// checks the length rules through for_each_length_rule before every call, with the messages a
// user sees; CheckingBackend (checking_backend.hpp) checks the whole contract at every call in
// debug builds, through problem(). Data-dependent checks (indices, divisors, segment lengths)
// are not shape rules: backends always make them.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "cvl/backend.hpp"
#include "cvl/errors.hpp"
#include "vcode/length_rules.hpp"

namespace cvl {

// An operand's counts as the rules read them: a vector's length, a descriptor's segments and
// total (null where the operand has no such count).
struct RuleOperand {
  const Length* length = nullptr;
  const Length* segments = nullptr;
  const Length* total = nullptr;
};

inline const Length& measured(const RuleOperand& operand, vcode::Measure measure) {
  const Length* count = measure == vcode::Measure::Length     ? operand.length
                        : measure == vcode::Measure::Segments ? operand.segments
                                                              : operand.total;
  if (!count) throw InternalError("a length rule reads a count its operand does not have");
  return *count;
}

// Calls check(a, b, rule) with the two counts each rule compares, in the rules' order.
template <class Check>
void for_each_length_rule(std::span<const vcode::LengthRule> rules,
                          std::span<const RuleOperand> operands, Check&& check) {
  for (const vcode::LengthRule& rule : rules) {
    if (rule.a >= operands.size() || rule.b >= operands.size())
      throw InternalError("a length rule names an operand the instruction does not have");
    check(measured(operands[rule.a], vcode::first_measure(rule.kind)),
          measured(operands[rule.b], vcode::second_measure(rule.kind)), rule);
  }
}

namespace contract {

// A backend was called with operands that break a shape rule: a bug in the caller.
struct Violation : InternalError {
  using InternalError::InternalError;
};

// An operand of a backend call, at its position among the instruction's operands (ops.def's
// letters, deepest first): a vector or a descriptor.
struct Operand {
  const Vector* vector = nullptr;
  const Segdes* segdes = nullptr;
};

// The first rule that the operands of `op` (instruction type `type`) break, named with the
// opcode, or "": their number, each one's kind and element type, the type set, the length rules.
// Lengths that are pending (cvl/length.hpp) break no rule.
std::string problem(vcode::Op op, Type type, std::span<const Operand> operands);
// The same for a FUSED call of a prepared superoperator over `domain` elements.
std::string fused_problem(const PreparedSuperOp& op, std::span<const FusedOperand> operands,
                          const Length& domain);
// Whether elements [first, first + count) lie inside v.
std::string download_problem(const Vector& v, std::size_t first, std::size_t count);

}  // namespace contract
}  // namespace cvl
