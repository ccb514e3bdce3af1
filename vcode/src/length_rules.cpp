// The operands' length rules (length_rules.hpp): ops.def's column, parsed once.
#include "vcode/length_rules.hpp"

#include <array>
#include <stdexcept>

namespace vcode {
namespace {

using Kind = LengthRule::Kind;

std::vector<LengthRule> parse(std::string_view text, std::string_view spelling) {
  std::vector<LengthRule> rules;
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    if (at + 3 > text.size() || text[at + 1] < '0' || text[at + 1] > '9' || text[at + 2] < '0' ||
        text[at + 2] > '9')
      throw std::logic_error("ops.def: bad length rule for " + std::string(spelling));
    Kind kind;
    switch (text[at]) {
      case '=': kind = Kind::SameLength; break;
      case 'D': kind = Kind::Describes; break;
      case 'P': kind = Kind::OnePerSegment; break;
      case 'S': kind = Kind::SameSegments; break;
      default: throw std::logic_error("ops.def: bad length rule for " + std::string(spelling));
    }
    rules.push_back({kind, static_cast<std::uint8_t>(text[at + 1] - '0'),
                     static_cast<std::uint8_t>(text[at + 2] - '0')});
    at += 3;
  }
  return rules;
}

}  // namespace

std::span<const LengthRule> length_rules(Op op) {
  static const std::array<std::vector<LengthRule>, op_count> table = [] {
    std::array<std::vector<LengthRule>, op_count> rules;
    for (std::size_t i = 0; i < op_count; ++i)
      rules[i] = parse(op_table[i].lengths, op_table[i].spelling);
    return rules;
  }();
  return table[static_cast<std::size_t>(op)];
}

std::vector<LengthRule> length_rules(const SuperOpAnalysis& analysis) {
  std::vector<LengthRule> rules;
  const auto source = static_cast<std::uint8_t>(analysis.domain_operand);
  for (std::size_t i = 0; i < analysis.operands.size(); ++i) {
    const OperandUse& use = analysis.operands[i];
    const auto a = static_cast<std::uint8_t>(i);
    if (use.elementwise)
      rules.push_back(analysis.domain_is_total ? LengthRule{Kind::Describes, source, a}
                                               : LengthRule{Kind::SameLength, source, a});
    if (use.segdes)
      rules.push_back(analysis.domain_is_total ? LengthRule{Kind::SameTotal, source, a}
                                               : LengthRule{Kind::Describes, a, source});
    for (std::uint32_t s : use.per_segment_of)
      rules.push_back({Kind::OnePerSegment, a, static_cast<std::uint8_t>(s)});
  }
  return rules;
}

std::string length_rule_message(const LengthRule& rule, std::size_t a_count, std::size_t b_count) {
  const std::string a = std::to_string(rule.a), b = std::to_string(rule.b);
  switch (rule.kind) {
    case Kind::SameLength:
      return "length mismatch between args " + a + "(" + std::to_string(a_count) + ") and " + b +
             "(" + std::to_string(b_count) + ")";
    case Kind::Describes:
      return "args " + b + " and " + a + " are incompatible: the segment descriptor describes " +
             std::to_string(a_count) + " elements, the vector has " + std::to_string(b_count);
    case Kind::OnePerSegment:
      return "args " + a + " and " + b + " are incompatible: " + std::to_string(a_count) +
             " elements for " + std::to_string(b_count) + " segments";
    case Kind::SameSegments:
      return "args " + a + " and " + b + " are incompatible: " + std::to_string(a_count) + " and " +
             std::to_string(b_count) + " segments";
    case Kind::SameTotal:
      return "args " + a + " and " + b + " are incompatible: the segment descriptors describe " +
             std::to_string(a_count) + " and " + std::to_string(b_count) + " elements";
  }
  return {};
}

}  // namespace vcode
