// Name resolution and Hindley-Milner type inference with NESL's type classes over a parsed program.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "nesl/ast.hpp"
#include "nesl/basis.hpp"
#include "nesl/name_suggestions.hpp"
#include "nesl/types.hpp"

namespace nesl {

// What checking one top-level form found, in the classic REPL's words.
struct FormType {
  std::string name;  // the function, datatype or bound variable; "it" for an expression
  Type type;
  bool is_function = false;  // functions and datatype constructors print as `NAME = fn : T`
};

struct CheckedProgram {
  std::vector<FormType> forms;   // one per function, datatype and expression; one per bound variable
  std::vector<Type> expressions; // the types of the top-level expressions, in order
  // What code generation needs: every expression's and pattern variable's type, and at each use
  // of an operator (Binary, Unary) the instance of its function type. The types still hold the
  // variables of their function's generic type; a substitution of those gives an instance.
  std::unordered_map<const Expr*, Type> expression_types;
  std::unordered_map<const Expr*, Type> operator_instances;
  std::map<std::string, Type> function_types;  // each user function's generic type
  std::map<std::string, Type> datatype_constructors;  // fields -> datatype, generic
};

// What the checker knows of names from outside the program it checks (the session checks a form
// with only the definitions the form reads). Each may be empty; the functions are asked only
// when a name is unbound.
struct NamesOutside {
  // Where a later form of the program the forms come from defines the name; null when none does.
  std::function<const Location*(const std::string& name)> defined_later;
  // The names defined outside the program, for the closest one.
  std::function<std::vector<std::string>()> known;
  // Names bound outside the program, with their types: in scope before its first form.
  std::map<std::string, Type> types;
};

// Checks every form in order against the basis; throws CompileError at the first error. A name
// no form before its use defines is reported as defined later when a later form of `program`
// defines it, or `outside` says where; otherwise with the closest name known.
CheckedProgram check_program(const Program& program, const Basis& basis, const NamesOutside& outside = {});

// The program's type: the tuple of its top-level expressions, as NAME.type writes it.
std::string program_type(const CheckedProgram& checked);

// One line per form, as the classic REPL prints it but without values: `f = fn : int -> int`,
// `xs : [int]`, `it : [int]`.
std::string describe_form(const FormType& form);

}  // namespace nesl
