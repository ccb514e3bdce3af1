// The flat IR between flatten and lower: functions over vector leaves (segdes, INT, FLOAT, BOOL),
// whose operations are VCODE's own (vcode::Op, typed by ops.def).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nesl/source.hpp"
#include "vcode/op.hpp"
#include "vcode/program.hpp"

namespace nesl::flat {

// A char is an INT vector of codes, so four kinds cover every leaf.
enum class Leaf { Int, Float, Bool, Segdes };

// VCODE's type keyword for a leaf kind, and the leaf a keyword's vectors are (CHAR: INT codes).
vcode::TypeKeyword keyword_of(Leaf leaf);
Leaf leaf_of(vcode::TypeKeyword keyword);
const char* leaf_keyword(Leaf leaf);

using Value = int;  // an index into its function's leaf table; each is assigned once

struct Statement;
using Block = std::vector<Statement>;

struct Statement {
  enum class Kind {
    Op,     // a VCODE operation on inputs (deepest first) giving outputs, as ops.def types it
    Const,  // a constant, one output
    Call,   // callee on inputs giving outputs
    If,     // inputs[0] a BOOL scalar; each arm a block and the values it yields as outputs
  };
  Kind kind = Kind::Op;
  vcode::Op op = vcode::Op::Exit;           // Op
  std::optional<vcode::TypeKeyword> type;   // Op: its type keyword, when the opcode takes one
  vcode::Constant constant;                 // Const
  std::string callee;                       // Call
  std::vector<Value> inputs;
  std::vector<Value> outputs;
  Block then_block, else_block;
  std::vector<Value> then_results, else_results;
  Location where;  // the source expression it computes part of, for runtime errors; may be nowhere
};

// What an operation gives, by ops.def's result letters: one leaf per result.
std::vector<Leaf> result_leaves(vcode::Op op, std::optional<vcode::TypeKeyword> type);

struct Function {
  std::string name;
  std::vector<Leaf> leaves;  // the kind of each value
  std::vector<Value> parameters;  // deepest first
  Block body;
  std::vector<Value> results;  // deepest first
};

// Functions in emission order; the first is the entry.
struct Program {
  std::vector<Function> functions;
};

std::string print_program(const Program& program);

// Problems, empty when each value is defined once before use, in scope, each operation's
// operands and results have the kinds ops.def gives its letters, and the structure holds (an
// IF's condition BOOL, the arms' results matching the outputs, calls of defined functions).
std::vector<std::string> verify_program(const Program& program);

}  // namespace nesl::flat
