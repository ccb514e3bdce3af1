// What flatten asks of a core expression: the variables it reads, whether it is simple enough to
// compute everywhere, and whether it can stop the program.
#pragma once

#include <set>
#include <string>

#include "nesl/core.hpp"

namespace nesl::flattening {

void pattern_names(const core::Pattern& pattern, std::set<std::string>& out);
// The variables `e` reads that neither `bound` nor its own patterns bind, added to `out`.
void free_variables(const core::Expr& e, std::set<std::string> bound, std::set<std::string>& out);
std::set<std::string> free_variables(const core::Expr& e);
// Variables, constants and tuples of them: both arms of an `if` made of these can be computed
// everywhere and combined with SELECT.
bool is_simple(const core::Expr& e);
// Whether running `e` can stop the program: a call, a checked primitive (an index, a division,
// rand's argument, error, a permute or a shape that must agree), or generators whose lengths
// must agree. Conservative: what it cannot tell is taken to fail.
bool can_fail(const core::Expr& e);
// Whether `e` is scalar arithmetic: elementwise primitives over variables and constants (made
// per element, they cost what copying their value to each element does).
bool scalar_arithmetic(const core::Expr& e);
// Whether `e` gives the same value each time it runs on the same variables: it draws no random
// number, reads no clock and does no I/O, nor does any function it calls (`varying` names the
// functions that do).
bool deterministic(const core::Expr& e, const std::set<std::string>& varying);
// The functions of the program that draw, time or do I/O, themselves or through a call.
std::set<std::string> varying_functions(const std::vector<core::Function>& functions);
// Whether every use of the variable `name` in `e` reads it in place: as the sequence of `v[i]`,
// `#v` or `v -> is`, or as an argument of a call (whose instance then gets it shared). A free
// sequence so read is shared by the elements of an apply-to-each instead of copied to each.
bool read_in_place(const core::Expr& e, const std::string& name);

}  // namespace nesl::flattening
