// The syntax tree of a NESL program as written: expressions, patterns, type expressions, top-level forms.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nesl/source.hpp"

namespace nesl {

// A type as written in a signature, an empty sequence or a datatype: `int`, `[t]`, `(t1, t2)`,
// `t1 -> t2`, `point`, `labeled(a)`. Which names are type variables is decided by the checker.
struct TypeExpr {
  enum class Kind { Name, Sequence, Pair, Function };
  Kind kind = Kind::Name;
  Location where;
  std::string name;                                  // Name
  std::vector<std::unique_ptr<TypeExpr>> children;  // Name: parameters; Sequence: 1; Pair, Function: 2
};
using TypeExprPtr = std::unique_ptr<TypeExpr>;

// `:: (a in number; b in any)`: the class each named type variable belongs to.
struct TypeContextEntry {
  std::string variable;
  std::string type_class;
  Location where;
};

struct TypeSignature {
  TypeExprPtr type;
  std::vector<TypeContextEntry> context;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
  Integer,   // text
  Float,     // text
  Character, // text (one character)
  String,    // text
  Variable,  // text: the name
  Pair,      // children: left, right (the comma; tuples nest to the right)
  Call,      // children: function, argument; text: kJuxtaposedOnNewLine for `f\n x`
  Binary,    // text: operator; children: left, right
  Unary,     // text: operator (-, #, @); children: operand
  Index,     // children: sequence, index
  If,        // children: condition, then, else
  Let,       // bindings; children: body
  Over,      // apply-to-each; generators; children: body (null for {x in s | p}), filter (may be null)
  Sequence,  // children: the elements
  Empty,     // `[] type`; type
  Range,     // children: start, end, stride (stride may be null)
  Lambda,    // `(pattern => body)`: bindings[0].pattern the parameter (no value); children: body
};

// The text of a Call written as an operand after an expression on a later line.
inline constexpr std::string_view kJuxtaposedOnNewLine = "juxtaposed on a new line";

// A let binding or an apply-to-each generator: `pattern = value` or `pattern in value`.
struct Binding {
  ExprPtr pattern;  // a variable, a tuple of patterns or a datatype constructor applied to a pattern
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::Integer;
  Location where;  // the first token; for Binary the operator, for Call and Index the bracket
  std::string text;
  std::vector<ExprPtr> children;
  std::vector<Binding> bindings;
  TypeExprPtr type;
};

ExprPtr make_expr(ExprKind kind, Location where, std::string text = {});

// `function NAME(ARGS) [: TYPE [:: CONTEXT]] = BODY;`
struct FunctionDefinition {
  std::string name;
  ExprPtr arguments;  // a pattern
  std::optional<TypeSignature> signature;
  std::string documentation;  // the string written before '=', if any
  ExprPtr body;
};

// `datatype NAME(FIELDS) [:: CONTEXT];`
struct DatatypeDefinition {
  std::string name;
  TypeSignature fields;
};

// `PATTERN = VALUE;`
struct GlobalBinding {
  ExprPtr pattern;
  ExprPtr value;
};

// A top-level expression; its value is the program's next result.
struct TopLevelExpression {
  ExprPtr value;
};

// The classic's top-level command `set NAME VALUE;` among a file's forms (`set arg_check off;`).
struct TopLevelSetting {
  std::string name;
  std::string value;
};

struct TopLevelForm {
  enum class Kind { Function, Datatype, Binding, Expression, Setting };
  Kind kind = Kind::Expression;
  Location where;
  FunctionDefinition function;
  DatatypeDefinition datatype;
  GlobalBinding binding;
  TopLevelExpression expression;
  TopLevelSetting setting;
};

// A file's forms; `load "FILE";` puts the forms of FILE in its place, and the files read so
// stay alive with the program, since its forms point into them.
struct Program {
  std::shared_ptr<SourceFile> source;
  std::vector<TopLevelForm> forms;
  std::vector<std::shared_ptr<SourceFile>> loaded;
};

}  // namespace nesl
