// The static rules of FCODE superoperators (vcode/superop.hpp): checked when a program is
// loaded, and by verify_program for superoperators built in memory (fcode-opt).
#pragma once

#include <span>
#include <vector>

#include "vcode/diagnostics.hpp"
#include "vcode/program.hpp"
#include "vcode/superop.hpp"

namespace vcode {

// Checks one definition: known ops of the right family and arity, type keywords allowed by
// ops.def, argument types, DIST/INDEX leaves (an operand or a constant) and descriptors (a
// SEGDES operand), scans and reductions only at the root (a reduction also as the value of a DIST
// over its own descriptor), every $k declared and used, children
// before parents, and a length source (an operand read elementwise, or a descriptor).
// `node_where` gives each node's location (empty: the definition's location is used).
// Appends one diagnostic per problem.
void check_superop(const SuperOp& op, std::span<const SourceLocation> node_where,
                   std::vector<Diagnostic>& errors);

// Checks the table of a whole program: superops[i].id == i for every i, and every `FUSED n`
// names a definition.
void check_superop_table(const Program& program, std::vector<Diagnostic>& errors);

}  // namespace vcode
