// The flat-opt pass: cleanups of the flat IR before lowering.
#pragma once

#include "nesl/flat.hpp"

namespace nesl {

// Shares common values (share_common_values), then drops the statements that only compute values
// nobody reads: constants and LENGTHS (which print, draw and fail nothing).
flat::Program optimize_flat(flat::Program program);

// An operation (not elementwise) repeating an earlier one on the same inputs reads the earlier
// result (common_values.cpp).
flat::Program share_common_values(flat::Program program);

}  // namespace nesl
