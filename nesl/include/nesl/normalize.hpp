// The normalize pass: core expressions into A-normal form, every operand a variable or constant.
#pragma once

#include "nesl/core.hpp"

namespace nesl {

// Let-binds each non-trivial operand of a call, primitive, sequence literal, condition or
// generator, in evaluation order (left to right), so that later passes see names for them, and
// gives every bound variable a name of its own (NAME_N), so each is bound exactly once.
core::Program normalize(const core::Program& program);

}  // namespace nesl
