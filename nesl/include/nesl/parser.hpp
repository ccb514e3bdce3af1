// Parses NESL source into a syntax tree by precedence climbing over the classic operator table.
#pragma once

#include <memory>
#include <vector>

#include "nesl/ast.hpp"
#include "nesl/token.hpp"

namespace nesl {

// The whole program; throws CompileError at the first syntax error.
Program parse_program(std::shared_ptr<SourceFile> source);

// Type syntax on its own, for the basis signatures: reads `TYPE [:: CONTEXT]` from tokens[position]
// and advances position past it.
TypeSignature parse_type_signature(const std::vector<Token>& tokens, std::size_t& position);

}  // namespace nesl
