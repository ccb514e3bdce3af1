// Splits NESL source into tokens: case-insensitive words, %comments%, numbers, `chars, "strings", operators.
#pragma once

#include <string>
#include <vector>

#include "nesl/source.hpp"
#include "nesl/token.hpp"

namespace nesl {

// The tokens of the whole file, ending with one End token; throws CompileError on bad input.
std::vector<Token> tokenize(const SourceFile& source);

// A word with its case folded as the lexer folds names and keywords (NESL is case-insensitive).
std::string lowercase(std::string text);

}  // namespace nesl
