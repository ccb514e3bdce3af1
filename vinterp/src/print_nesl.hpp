// --print-nesl: the final stack printed as NESL values with their types, `it = [1, 4] : [int]`,
// as `nesl FILE` prints its expressions' values; the types come from the comment `nesl --vcode`
// writes at the end of the VCODE (nesl/include/nesl/result_types.hpp).
#pragma once

#include <optional>
#include <string>

#include "nesl/result_types.hpp"

namespace vinterp {

// The NESL result types `file` ends with, or nothing after printing why it has none.
std::optional<nesl::ResultTypes> result_types_or_report(const std::string& file);

// Prints the values the stack holds, one result after another; false after printing why they
// cannot be read from it.
bool print_nesl_values(const std::string& stack, const nesl::ResultTypes& types, const std::string& file);

}  // namespace vinterp
