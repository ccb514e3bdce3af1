// The length rules of an instruction's operands (spec/VCODE.md §7), one list per opcode, read
// from ops.def's `lengths` column, and for FUSED n from its superoperator's analysis. The VM
// checks them on every instruction (vm/exec_vector.cpp, exec_fused.cpp); a debug build's
// CheckingBackend checks the same list at every backend call (cvl/checking_backend.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vcode/op.hpp"
#include "vcode/superop_analysis.hpp"

namespace vcode {

// One rule over two operands (positions among the instruction's operands, 0 the deepest).
struct LengthRule {
  enum class Kind : std::uint8_t {
    SameLength,     // vectors a and b have equal lengths                      (ops.def `=ab`)
    Describes,      // segdes a describes vector b: its total is b's length     (`Dab`)
    OnePerSegment,  // vector a has one element per segment of segdes b       (`Pab`)
    SameSegments,   // segdes a and b have as many segments                    (`Sab`)
    SameTotal,      // segdes a and b describe as many elements (FUSED only)
  };
  Kind kind;
  std::uint8_t a;
  std::uint8_t b;
  bool operator==(const LengthRule&) const = default;
};

// Which count of an operand a rule compares: a vector's length, a descriptor's segments or
// total.
enum class Measure : std::uint8_t { Length, Segments, Total };
inline Measure first_measure(LengthRule::Kind k) {
  using K = LengthRule::Kind;
  return k == K::SameLength || k == K::OnePerSegment ? Measure::Length
         : k == K::SameSegments                      ? Measure::Segments
                                                     : Measure::Total;
}
inline Measure second_measure(LengthRule::Kind k) {
  using K = LengthRule::Kind;
  return k == K::SameLength || k == K::Describes ? Measure::Length
         : k == K::SameTotal                     ? Measure::Total
                                                 : Measure::Segments;
}

// The rules of `op` (ops.def), in the order they are checked.
std::span<const LengthRule> length_rules(Op op);
// The rules of a FUSED call of a superoperator: every operand read at each element has the
// domain's length, every descriptor of a fold or a DIST/INDEX leaf describes the domain, every
// per-segment operand has one element per segment of its descriptor.
std::vector<LengthRule> length_rules(const SuperOpAnalysis& analysis);

// What a broken rule says, given the two counts it compared (first a's, then b's).
std::string length_rule_message(const LengthRule& rule, std::size_t a_count, std::size_t b_count);

}  // namespace vcode
