// The element type of every variable of the IR, as a fact that holds on every path: what lets
// a pass give a value to an operation that requires a type (a superoperator operand, a hoisted
// or dropped statement) without a type error where the program had none.
#pragma once

#include "fopt/ir.hpp"

namespace fopt {

// Recomputes the types of the variables that no operation defines (IF results, call results,
// parameters) from their definitions: an IF result has a type only if every branch that returns
// yields that type, a parameter only if every call passes it (and every caller is optimized),
// a call result only if the callee returns it. Otherwise the type is Unknown. Uses never decide
// a type: a path where the value has another type may simply not reach them.
void infer_var_types(Module& module);

// Does every operand of the Op statement `s` hold, on every path, the type the op requires
// (ops.def), so that the op, executed anywhere the operands are defined, has no type error?
bool operands_well_typed(const Stmt& s, const Module& module);

}  // namespace fopt
