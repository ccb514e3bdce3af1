// The flat IR between flatten and lower: functions over vector leaves (segdes, INT, FLOAT, BOOL).
#pragma once

#include <string>
#include <vector>

#include "nesl/source.hpp"

namespace nesl::flat {

// A char is an INT vector of codes, so four kinds cover every leaf.
enum class Leaf { Int, Float, Bool, Segdes };

// VCODE's type keyword for a leaf kind.
const char* leaf_keyword(Leaf leaf);

using Value = int;  // an index into its function's leaf table; each is assigned once

struct Statement;
using Block = std::vector<Statement>;

struct Statement {
  enum class Kind {
    Op,     // opcode applied to inputs (deepest first) giving outputs
    Const,  // constant: "INT 5", "FLOAT (1.5 2.0)", "BOOL T", "CHAR \"text\"", "INT ()"
    Call,   // callee on inputs giving outputs
    If,     // inputs[0] a BOOL scalar; each arm a block and the values it yields as outputs
    Exit,   // ends the program (after an error message)
  };
  Kind kind = Kind::Op;
  std::string text;  // Op: the opcode with its type; Const: the constant; Call: the callee
  std::vector<Value> inputs;
  std::vector<Value> outputs;
  Block then_block, else_block;
  std::vector<Value> then_results, else_results;
  Location where;  // the source expression it computes part of, for runtime errors; may be nowhere
};

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

// Problems, empty when each value is defined once before use, in scope, with the kinds the
// structural operations need (an IF's condition BOOL, the arms' results matching the outputs).
std::vector<std::string> verify_program(const Program& program);

}  // namespace nesl::flat
