// Writes a syntax tree back as NESL source that parses to the same tree.
#pragma once

#include <string>

#include "nesl/ast.hpp"

namespace nesl {

std::string print_expression(const Expr& expr);
std::string print_type_expression(const TypeExpr& type);
// `TYPE :: (a in CLASS; ...)` as a signature is written after `:`.
std::string print_type_signature(const TypeSignature& signature);
std::string print_form(const TopLevelForm& form);
// One form per line, each ending in `;`.
std::string print_program(const Program& program);

}  // namespace nesl
