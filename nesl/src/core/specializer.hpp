// The specialize pass's state (core/README.md): one Specializer makes the monomorphic core
// program. Its members are defined by concern: specialize.cpp (the worklist of instances and
// concrete types), function_values.cpp (function values known when compiling: each call goes to a
// known function), desugar.cpp (names resolved, the syntax written in the core's few forms) and
// typecases.cpp (the classic's typecases unrolled at the concrete type: eql, identity, hash, @).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nesl/ast.hpp"
#include "nesl/checker.hpp"
#include "nesl/core.hpp"
#include "nesl/library.hpp"

namespace nesl::specializing {

using Substitution = std::map<const TypeNode*, Type>;

// Where a definition comes from: the user's program or basis.nesl; each has its own types.
struct Source {
  const Program* program;
  const CheckedProgram* checked;
  std::map<std::string, const FunctionDefinition*> functions;
};

struct Closure;

// A function value, which is always known when compiling: a named function of the program or
// basis.nesl, a primitive, a datatype's constructor, or a function expression `(x => e)`. A
// function taking one is copied for each function it is given, which it then calls directly.
// Only a function expression has data at run time: the values of the local variables it reads
// (its environment), which go where the function goes, as data.
struct FunctionValue {
  enum class Kind { Definition, Primitive, Constructor, Lambda };
  Kind kind = Kind::Definition;
  const FunctionDefinition* definition = nullptr;  // Definition
  const Source* source = nullptr;                  // Definition
  std::string name;
  std::shared_ptr<const Closure> closure;          // Lambda
  core::ExprPtr environment;                       // Lambda: here, its environment's value (null if none)
};

// A variable in scope; a function-valued one holds the function it names.
struct Local {
  std::string name;
  std::optional<FunctionValue> function;
  Type type = nullptr;  // a data variable's concrete type
};

// What a function expression needs to be compiled where it is called: its syntax, the types it
// was checked with, the local functions it names and the local data it reads, which its
// environment holds in this order.
struct Closure {
  const Expr* lambda = nullptr;
  const Source* source = nullptr;
  Substitution substitution;
  std::vector<Local> functions;
  std::vector<Local> data;
  std::string key;  // tells instances given different function expressions apart
};

// A function instance to make, or a top-level binding's variable read inside a function.
struct Pending {
  const FunctionDefinition* definition;
  const Source* source;
  Substitution substitution;
  std::string name;
  const GlobalBinding* global = nullptr;
  std::string global_variable;
  // The functions its function-valued parameters are bound to, left to right.
  std::vector<FunctionValue> known = {};
};

// Whether a value of this type is or holds a function.
bool holds_function(const Type& type);
// An instance's VCODE-safe name: the NESL name upper-cased, non-word characters as `_`, numbered.
std::string vcode_name(const std::string& nesl_name, int number);

class Specializer {
 public:
  Specializer(const Program& program, const CheckedProgram& checked, const Library& library);
  core::Program run();

 private:
  void drain(core::Program& result);
  bool has_bindings() const;
  static bool uses_primitive(const core::Expr& e, const std::string& name);
  static bool uses_primitive(const core::Program& program, const std::string& name);

  // The concrete type: variables by the substitution (unconstrained ones are int: nothing
  // observable depends on them), datatypes by their fields.
  Type concrete(const Type& type, const Substitution& substitution) const;
  Type constructor_of(const std::string& name) const;

  // Extends the substitution so that the generic type becomes the concrete one.
  void match(const Type& generic, const Type& concrete_type, Substitution& substitution) const;
  std::string source_prefix(const Source& source) const { return &source == &user_ ? "user:" : "basis:"; }

  // What tells one function value from another in an instance's key.
  std::string function_key(const FunctionValue& function) const;
  std::string request(const FunctionDefinition& definition, const Source& source, const Type& type,
                      const std::vector<FunctionValue>& known = {});
  void collect_globals(const Expr& pattern, const GlobalBinding& binding);

  // A top-level variable read inside a function: a function of no real argument that computes
  // the binding's value again (the value does not depend on where it is computed).
  core::ExprPtr global_read(const std::string& name, Type type);
  core::Function global_instance(const Pending& pending);
  static core::PatternPtr unused_parameter();
  static Type variable_type(const core::Pattern& pattern, const std::string& name);
  core::Function instance(const Pending& pending);
  core::ExprPtr main_body(bool fresh_streams);
  Type type_of(const Expr& e) const;
  static core::ExprPtr pair(core::ExprPtr left, core::ExprPtr right);
  static core::ExprPtr let(core::PatternPtr bound, core::ExprPtr value, core::ExprPtr body);
  static core::ExprPtr constant(BaseType base, std::string text);
  static core::ExprPtr variable(const std::string& name, Type type);
  static core::ExprPtr primitive(const std::string& name, core::ExprPtr argument, Type type);
  core::ExprPtr fresh_variable_pattern(core::ExprPtr value, core::PatternPtr& bound);

  // The pattern's variables come into scope; a function-valued one is bound to the next of
  // `known` and leaves the runtime pattern, which is null when nothing is left of it.
  core::PatternPtr pattern(const Expr& p, std::deque<FunctionValue>* known = nullptr);

  // `pattern = value` as a let: the functions in the value are bound when compiling, and the
  // rest, if any, is a let around what follows.
  void bind(const Expr& bound_pattern, const Expr& value_syntax,
            std::vector<std::pair<core::PatternPtr, core::ExprPtr>>& lets);
  const Local* find_local(const std::string& name) const;
  bool is_local(const std::string& name) const { return find_local(name) != nullptr; }

  // The value of an expression of a type that holds functions: the functions, left to right, go
  // to `known`, and what is left is returned (null when nothing is). Only a function, or a tuple
  // written out, can be taken apart so.
  core::ExprPtr split(const Expr& e, std::vector<FunctionValue>& known);

  // The function an expression of function type denotes, which must be known when compiling.
  FunctionValue function_value(const Expr& e);

  // A name used as a function: a local, a top-level binding, a datatype constructor, a program or
  // basis.nesl function, or a primitive, in that order.
  FunctionValue named_function(const std::string& name, Location where);

  // Whether the top-level binding of `name` binds it to a function (a function defined after a
  // binding of the same name hides it).
  bool binds_function(const std::string& name) const;
  static const Expr* pattern_variable(const Expr& pattern, const std::string& name);

  // A top-level binding whose value is a function, read in a function: the same function,
  // found from the binding's expression in the top level's scope.
  FunctionValue global_function(const std::string& name, Location where);

  // A function expression as a value: what it reads of the local scope is captured now, the local
  // functions as themselves and the local data as its environment (a tuple of their values).
  FunctionValue closure(const Expr& lambda);

  // A call of a function expression is its body where it is called, in the scope it captured:
  // `let a = ARGUMENT; (captured data) = ENVIRONMENT; PARAMETER = a in BODY`.
  core::ExprPtr inline_lambda(const FunctionValue& function, core::ExprPtr argument,
                              const std::vector<FunctionValue>& known);

  // A call of a known function. `argument` is the runtime part of the argument (null when it is
  // all functions) and `known` the functions in it, left to right.
  core::ExprPtr apply(const FunctionValue& function, const Type& instance, core::ExprPtr argument,
                      const std::vector<FunctionValue>& known, Type result, Location where);

  // The built-ins specialize writes out at the argument's type (name, eql), and the writes whose
  // elements hold sequences, which take the general versions basis.nesl writes; the rest are
  // flatten's primitives.
  static const std::set<std::string>& unrolled_builtins();
  core::ExprPtr builtin(const std::string& name, core::ExprPtr argument, Type result);

  // A call of a named function (an operator's): see named_function.
  core::ExprPtr call(const std::string& name, const Type& instance, core::ExprPtr argument, Type result,
                     Location where);

  // The core of `e`; the nodes made for it are located at `e` (those of its subexpressions
  // already are at theirs).
  core::ExprPtr expr(const Expr& e);
  static void locate(core::Expr& e, const Location& where);
  core::ExprPtr translate(const Expr& e);

  // Whether the checker gave e a type that holds a function (a tuple pattern used as a body has
  // no type of its own).
  bool records_function(const Expr& e) const;

  // An expression whose value is or holds a function where only data can go: in a sequence, an
  // if's branch, a function's result, a program's result.
  [[noreturn]] void function_out_of_place(const Expr& e);
  static bool contains_sequence(const Type& type);

  // Whether a write's result, of type [a], needs the general version: `<-` and rep scatter each
  // leaf of a base type or a tuple of them; cond_put and fpermute_hack only base types.
  static bool needs_general_write(const std::string& name, const Type& result);

  // eql(a, b): == on numbers and characters, not-xor on booleans, componentwise on tuples, and
  // on sequences equal lengths and then every pair of elements equal.
  core::ExprPtr equal_of(core::ExprPtr left, core::ExprPtr right, const Type& type);

  // The classic's identity of a type: 0, 0.0, the null character, f, the empty sequence, and a
  // tuple of its parts' identities.
  core::ExprPtr identity_of(const Type& type);

  // The classic's hash before its reduction to a range: a typecase on the value's type, unrolled
  // here at the concrete type; ints wrap as the VM's do.
  core::ExprPtr hash_of(core::ExprPtr value, const Type& type);
  static Type string_type() { return make_sequence(make_base(BaseType::Char)); }

  core::ExprPtr library_call(const std::string& name, core::ExprPtr argument, Type result);
  static core::ExprPtr string_constant(const std::string& text);
  static core::ExprPtr append(core::ExprPtr left, core::ExprPtr right);
  core::ExprPtr fresh_variable(const Type& type, core::PatternPtr& bound);

  // Binds the two parts of a pair value and makes the body from their names.
  template <typename Body>
  core::ExprPtr with_parts(core::ExprPtr value, const Type& type, Body body) {
    Type t = resolve(type);
    core::PatternPtr left, right;
    core::ExprPtr left_use = fresh_variable(t->children[0], left);
    core::ExprPtr right_use = fresh_variable(t->children[1], right);
    auto both = std::make_shared<core::Pattern>();
    both->kind = core::Pattern::Kind::Pair;
    both->children = {left, right};
    both->type = t;
    return let(both, std::move(value), body(left_use, right_use));
  }

  // @v: numbers, booleans and characters as basis.nesl writes them, a sequence as
  // [e1, e2, ...], a tuple as (a, b, c).
  core::ExprPtr string_of(core::ExprPtr value, const Type& type);

  // The second part of a tuple without its parentheses, as the classic's string_noparen: only
  // one level, whose own second part is written whole, so (a, b, c, d) is "(a, b, (c, d))".
  core::ExprPtr tuple_rest_string(core::ExprPtr value, const Type& type);

  // time(e) is (e, seconds): the clock starts before e is evaluated and stops after.
  core::ExprPtr timed(const Expr& e);

  // Every name a variable of e spells, wherever it is (a conservative superset of the free ones).
  static void collect_names(const Expr& e, std::set<std::string>& names);

  // {body : p1 in s1; ... | filter}. The sequences are evaluated first, in order; a filter
  // computes its flags over them and packs each before the body runs over what is left.
  core::ExprPtr over(const Expr& e);

  Source user_;
  Source library_;
  std::set<std::string> datatypes_;
  std::map<std::string, const GlobalBinding*> globals_;
  std::map<std::string, std::string> instances_;
  std::deque<Pending> pending_;
  int instance_count_ = 0;
  int temporaries_ = 0;
  const Source* source_ = nullptr;
  const Substitution* substitution_ = nullptr;
  std::vector<Local> locals_;
  std::set<std::string> resolving_globals_;
};

}  // namespace nesl::specializing
