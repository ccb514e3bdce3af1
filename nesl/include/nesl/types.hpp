// NESL types during inference: base types, sequences, pairs, functions, datatypes and class-bounded variables.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace nesl {

enum class BaseType { Int, Float, Bool, Char };

// NESL's closed type classes as the set of base types each admits; `any` admits every type.
// Intersecting two classes gives another class, a single base type, or nothing.
struct TypeClass {
  static constexpr unsigned kInt = 1, kFloat = 2, kChar = 4, kBool = 8;
  bool any = true;
  unsigned members = 0;  // when not any

  static TypeClass any_type() { return {}; }
  static TypeClass number() { return {false, kInt | kFloat}; }
  static TypeClass ordinal() { return {false, kInt | kFloat | kChar}; }
  static TypeClass logical() { return {false, kInt | kBool}; }
  bool admits(BaseType base) const;
  bool operator==(const TypeClass&) const = default;
};

// number, ordinal, logical or any; empty for a class with no name.
std::string type_class_name(const TypeClass& type_class);
// The class a name in a `::` context denotes, or nothing.
bool type_class_from_name(const std::string& name, TypeClass& out);

struct TypeNode;
using Type = std::shared_ptr<TypeNode>;

struct TypeNode {
  enum class Kind { Variable, Base, Sequence, Pair, Function, Datatype };
  Kind kind = Kind::Variable;
  BaseType base = BaseType::Int;  // Base
  std::string name;               // Datatype
  std::vector<Type> children;     // Sequence: 1; Pair, Function: 2; Datatype: its parameters
  Type bound_to;                  // Variable, once unified
  TypeClass type_class;           // Variable
  int id = 0;                     // Variable, for identity in messages and tests
};

Type make_variable(TypeClass type_class = TypeClass::any_type());
Type make_base(BaseType base);
Type make_sequence(Type element);
Type make_pair(Type left, Type right);
Type make_function(Type argument, Type result);
Type make_datatype(std::string name, std::vector<Type> parameters);

// Follows the bindings of unified variables to the type they stand for.
Type resolve(const Type& type);

// The classic's notation: pairs flattened to the right (`int, float` at the top, `(int, bool)`
// inside), variables named a, b, ... in order of appearance, and for a type with variables the
// context ` :: (a in number; b in any)` when with_context.
std::string print_type(const Type& type, bool with_context = false);

// For messages: like print_type with its context, but a tuple keeps its parentheses, `(int, int)`.
std::string describe_type(const Type& type);

}  // namespace nesl
