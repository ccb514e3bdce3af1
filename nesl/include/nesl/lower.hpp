// The lower pass: flat functions to VCODE text, the VCODE stack serving as the environment.
#pragma once

#include <string>
#include <vector>

#include "nesl/flat.hpp"

namespace nesl {

// Each value lives in a stack slot from its definition to its last use: an operand is fetched
// with COPY, or with CPOP at its last use; values nobody uses are popped at once; each IF arm
// pops what the code after the IF does not need, so both arms leave the same stack; before RET
// only the results remain. The first function is the entry; a function whose code is the same
// as an earlier one's is left out and its calls go to that one.
// With line_locations, where each line of the text came from is appended to it, in order
// (nowhere for the lines no source expression made).
std::string lower(const flat::Program& program, std::vector<Location>* line_locations = nullptr);

}  // namespace nesl
