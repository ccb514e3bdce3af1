// Reads the VM's final stack for one top-level expression (FRONTEND.md §3) back into a Value by its type.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "nesl/types.hpp"
#include "nesl/value.hpp"

namespace nesl {

// A result the classic REPL refuses, with its message: "Error while running VCODE." for a run
// that left no result (a runtime error stopped it), "Returning INF: infinity and not-a-number
// (NAN) are not supported." for a float it cannot read.
struct ResultError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `stack`: one line per slot, `( 1 2 )` for a vector and `[ 2 ]` for a segment descriptor, bottom
// first; `type`: the expression's type; `constructors`: each datatype's constructor type
// (CheckedProgram::datatype_constructors), which gives a datatype's fields. Throws ResultError.
Value read_result(std::string_view stack, const Type& type,
                  const std::map<std::string, Type>& constructors);

// A value of each type, in order, from the stack several results left one after the other (a
// whole program's, compiled by `nesl --vcode`). Throws ResultError.
std::vector<Value> read_results(std::string_view stack, const std::vector<Type>& types,
                                const std::map<std::string, Type>& constructors);

// The name each type variable is written as.
using VariableNames = std::unordered_map<const TypeNode*, std::string>;

// A type as NESL source, for `[] TYPE`: `int`, `[char]`, `(int, [bool])`, `labeled(char)`; a
// variable named by `variables` where it names it.
std::string type_source(const Type& type, const VariableNames& variables = {});

// The fields of datatype `type` (a Datatype node with concrete parameters), from its constructor.
Type datatype_fields(const Type& type, const std::map<std::string, Type>& constructors);

}  // namespace nesl
