// Test support for FUSED: superoperators from their text, random operands that obey the length
// rules, and the same expression run op by op on a backend (the unfused program), the oracle
// fused results are compared with.
#pragma once

#include <string>
#include <vector>

#include "cvl/unfused.hpp"
#include "support.hpp"
#include "vcode/superop.hpp"

namespace cvl_test {

// The one definition of `SUPEROP 0 (...) expression`.
vcode::SuperOp superop(const std::string& text);

// Operands for `op` on a domain of total_of(lengths) elements: every descriptor has `lengths`,
// per-segment operands one element per segment, the others the domain; random values (FLOAT
// in [0.25, 2)).
struct FusedCase {
  std::vector<HostVector> vectors;  // per operand; unused for descriptors
  Ints lengths;
  std::size_t domain = 0;
};
FusedCase random_case(const vcode::SuperOp& op, const Ints& lengths, std::mt19937_64& rng);
std::vector<cvl::FusedOperand> upload_operands(cvl::Backend& b, const vcode::SuperOp& op,
                                               const FusedCase& c);

// Definitions that between them use every node kind and every scan and reduce op on each of its
// types; their INT divisors cannot be 0.
const std::vector<std::string>& fused_definitions();

}  // namespace cvl_test
