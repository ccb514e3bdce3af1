// The core language between specialize and flatten: monomorphic, desugared NESL expressions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nesl/source.hpp"
#include "nesl/types.hpp"

namespace nesl::core {

// A binding pattern: a variable or a pair of patterns (datatype patterns are their fields).
struct Pattern {
  enum class Kind { Variable, Pair };
  Kind kind = Kind::Variable;
  std::string name;  // Variable
  Type type;         // concrete
  std::vector<std::shared_ptr<Pattern>> children;  // Pair: 2
};
using PatternPtr = std::shared_ptr<Pattern>;

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

enum class Kind {
  Constant,   // text: the literal as written; type: a base type
  Variable,   // name
  Pair,       // children: left, right
  Let,        // pattern = children[0] in children[1]
  If,         // children: condition, then, else
  Call,       // name: the function instance; children: the argument
  Primitive,  // name: the primitive; children: the argument (a tuple when it takes several)
  Over,       // generators: pattern in sequence; children: body (each generator's length must agree)
  Sequence,   // children: the elements (at least one)
  Empty,      // type: the sequence type
};

struct Generator {
  PatternPtr pattern;
  ExprPtr sequence;
};

struct Expr {
  Kind kind = Kind::Constant;
  Type type;  // concrete: no variables, datatypes already their field tuples
  std::string name;
  std::string text;
  PatternPtr pattern;
  std::vector<ExprPtr> children;
  std::vector<Generator> generators;
  Location where;  // the source expression it was made for; nowhere for the parts normalize adds
};

struct Function {
  std::string name;  // the instance's VCODE-safe name
  PatternPtr parameter;
  Type result;
  ExprPtr body;
};

// The functions reachable from main, each at one concrete type; main is the program's result.
struct Program {
  std::vector<Function> functions;
  ExprPtr main;
};

ExprPtr make(Kind kind, Type type);

// Readable text of the whole program, for --dump-after.
std::string print_program(const Program& program);

// Problems with the program's shape, empty when it is well formed; with anf, also checks that
// operands are variables or constants (the form normalize produces).
std::vector<std::string> verify_program(const Program& program, bool anf);

}  // namespace nesl::core
