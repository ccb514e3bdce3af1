// What the passes need to know about each VCODE op beyond ops.def: its fixed stack effect, whether
// it has an effect that must stay in place, and the types of its results.
#pragma once

#include <cstdint>
#include <optional>

#include "fopt/ir.hpp"
#include "vcode/op.hpp"

namespace fopt {

// Operands consumed and results pushed by an op with a fixed stack effect (not COPY/POP/CPOP,
// CALL, RET, IF/ELSE/ENDIF, FUNC, EXIT, which lift handles itself).
int fixed_arg_count(vcode::Op op);
int fixed_result_count(vcode::Op op);

// Ops that must keep their place and never be dropped or shared: I/O, RAND (the random
// stream's order), timers, EXIT, PAIR/UNPAIR (we do not model pairs).
bool has_effect(vcode::Op op);

// Pure ops that can never fail at run time, whatever their operands (so they may be dropped
// when unused): CONST, LENGTH, LENGTHS, and elementwise ops of one operand.
bool never_fails(vcode::Op op);

// An INT division or remainder: it fails on a zero divisor (and INT_MIN / -1), whatever the
// lengths.
bool is_int_division(const Stmt& stmt);

// Pure statements whose only way to fail, operands of the right type given, is a length mismatch
// between operands (elementwise ops but INT division, DIST, INDEX, PACK, scans and reductions):
// where LengthFacts::checks_hold says the lengths agree, they cannot fail.
bool fails_only_on_lengths(const Stmt& stmt);

// Ops a superoperator can contain as an inner node (ops.def family Elementwise).
bool is_elementwise(vcode::Op op);

// Whether `stmt` (possibly null: a parameter's definition) is the op `op`.
inline bool is_op(const Stmt* stmt, vcode::Op op) {
  return stmt && stmt->kind == StmtKind::Op && stmt->op == op;
}

// Whether `stmt` (possibly null) is `CONST INT value`, one element.
bool is_int_constant(const Stmt* stmt, std::int32_t value);

// The type of result `index` of `stmt` (an Op statement).
VarType result_type(const Stmt& stmt, std::size_t index);

// The type an operand at position `index` of an Op statement must have, if fixed.
VarType operand_type(const Stmt& stmt, std::size_t index);

}  // namespace fopt
