// Prints the let-form IR for --dump-after: one statement per line, `v3 v4 = op args`.
#pragma once

#include <ostream>

#include "fopt/ir.hpp"

namespace fopt {

void print_module(std::ostream& out, const Module& module);

}  // namespace fopt
