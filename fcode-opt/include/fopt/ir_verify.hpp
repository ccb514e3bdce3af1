// Checks the invariants of the let-form IR that every pass must keep: each variable defined
// once and before its uses (in an enclosing block), IF branches yielding one value per result,
// calls matching their callee's parameters and results, FUSED naming a superoperator.
#pragma once

#include <string>
#include <vector>

#include "fopt/ir.hpp"

namespace fopt {

// One message per broken invariant, each naming the function; empty when the module is sound.
std::vector<std::string> verify_module(const Module& module);

}  // namespace fopt
