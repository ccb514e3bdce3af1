// The whole shape contract of a backend call (shape_rules.hpp), as CheckingBackend checks it.
#include "cvl/shape_rules.hpp"

#include <array>

#include "cvl/op_dispatch.hpp"

namespace cvl::contract {
namespace {

using vcode::TypeKeyword;

std::string named(std::string_view where, const std::string& what) {
  return std::string(where) + ": " + what;
}

// The kind and type operand k must have: a descriptor for S, else a vector of the letter's type.
std::string operand_problem(std::string_view where, std::size_t k, const Operand& o,
                            TypeKeyword want) {
  const std::string which = "operand " + std::to_string(k);
  if (want == TypeKeyword::Segdes)
    return o.segdes ? "" : named(where, which + " is a vector, expected a segment descriptor");
  if (!o.vector) return named(where, which + " is a segment descriptor, expected a vector");
  const Type type = to_type(want);
  if (o.vector->type == type) return {};
  return named(where, which + " is " + type_name(o.vector->type) + ", expected " + type_name(type));
}

RuleOperand counts_of(const Operand& o) {
  if (o.segdes) return {nullptr, &o.segdes->segments, &o.segdes->total};
  return {&o.vector->length, nullptr, nullptr};
}

// The first rule known to be broken: pending lengths are checked by the interpreter later.
std::string length_problem(std::string_view where, std::span<const vcode::LengthRule> rules,
                           std::span<const RuleOperand> counts) {
  std::string found;
  for_each_length_rule(rules, counts,
                       [&](const Length& a, const Length& b, const vcode::LengthRule& rule) {
                         if (found.empty() && differ(a, b))
                           found = named(where, vcode::length_rule_message(rule, a.get(), b.get()));
                       });
  return found;
}

}  // namespace

std::string problem(vcode::Op op, Type type, std::span<const Operand> operands) {
  const vcode::OpInfo& info = vcode::info(op);
  const std::string_view where = info.spelling;
  if (operands.size() != info.args.size())
    return named(where, std::to_string(operands.size()) + " operands, expected " +
                            std::to_string(info.args.size()));
  const TypeKeyword keyword = to_keyword(type);
  if (info.syntax == vcode::Syntax::Type && (info.type_set & vcode::typeset::bit(keyword)) == 0)
    return named(where, "is not defined on " + std::string(type_name(type)));
  std::array<RuleOperand, 8> counts;
  if (operands.size() > counts.size()) return named(where, "too many operands");
  for (std::size_t k = 0; k < operands.size(); ++k) {
    std::string found = operand_problem(where, k, operands[k], vcode::operand_type(op, keyword, k));
    if (!found.empty()) return found;
    counts[k] = counts_of(operands[k]);
  }
  return length_problem(where, vcode::length_rules(op), std::span(counts.data(), operands.size()));
}

std::string fused_problem(const PreparedSuperOp& prepared, std::span<const FusedOperand> operands,
                          const Length& domain) {
  const vcode::SuperOp& op = prepared.definition;
  const vcode::SuperOpAnalysis& analysis = prepared.analysis;
  const std::string where = "FUSED " + std::to_string(op.id);
  if (op.nodes.empty() || operands.size() != op.operands.size())
    return named(where, "operands do not match the definition");
  std::vector<RuleOperand> counts(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const bool segdes = op.operands[k] == TypeKeyword::Segdes;
    const Operand o{segdes ? nullptr : &operands[k].vector, segdes ? &operands[k].segdes : nullptr};
    std::string found = operand_problem(where, k, o, op.operands[k]);
    if (!found.empty()) return found;
    counts[k] = counts_of(o);
  }
  if (analysis.domain_operand >= operands.size())
    return named(where, "no operand gives the domain");
  const RuleOperand& source = counts[analysis.domain_operand];
  const Length* fixed = analysis.domain_is_total ? source.total : source.length;
  if (fixed && differ(*fixed, domain))
    return named(where, "the domain is " + std::to_string(domain.get()) + " elements, operand " +
                            std::to_string(analysis.domain_operand) + " gives " +
                            std::to_string(fixed->get()));
  return length_problem(where, vcode::length_rules(analysis), counts);
}

std::string download_problem(const Vector& v, std::size_t first, std::size_t count) {
  const std::size_t length = v.length.bound();
  if (first <= length && count <= length - first) return {};
  return named("download", "elements " + std::to_string(first) + " + " + std::to_string(count) +
                               " are outside a vector of length " + std::to_string(length));
}

}  // namespace cvl::contract
