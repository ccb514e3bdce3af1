// The flat-opt pass: cleanups of the flat IR before lowering.
#pragma once

#include "nesl/flat.hpp"

namespace nesl {

// Drops the statements that only compute values nobody reads: constants and LENGTHS (which
// print, draw and fail nothing).
flat::Program optimize_flat(flat::Program program);

}  // namespace nesl
