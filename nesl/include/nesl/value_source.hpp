// A value written as NESL source that evaluates to it: how a later form reads a top-level variable.
#pragma once

#include <string>

#include "nesl/value.hpp"

namespace nesl {

// `[1, 2]`, `(-3)`, `1.5e0`, `"ab\"c"`, `[] (int, bool)`, `point(1.0e0, 2.5e0)`: literals only,
// so the value is not computed again. Floats keep every bit.
std::string value_source(const Value& value);

}  // namespace nesl
