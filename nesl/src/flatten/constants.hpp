// The constants flatten writes, as VCODE's own constant values.
#pragma once

#include <string>

#include "nesl/flat.hpp"
#include "nesl/source.hpp"
#include "vcode/program.hpp"

namespace nesl::flattening {

// A scalar of the leaf's kind (an INT or BOOL from an integral value).
vcode::Constant scalar(flat::Leaf leaf, double value);
vcode::Constant zero_of(flat::Leaf leaf);
// An empty vector of the leaf's kind: `INT ()`.
vcode::Constant empty_vector(flat::Leaf leaf);
// A literal of the core language (ints and character codes in decimal, floats as written, T or
// F); an integer VCODE's 32-bit INT cannot hold is a CompileError at `where`.
vcode::Constant literal(flat::Leaf leaf, const std::string& text, const Location& where);
// READ_LINE's one delimiter, as a vector: `INT (10)`.
vcode::Constant newline_delimiter();
// A CHAR constant: the codes of the text, written as a string.
vcode::Constant characters(const std::string& text);

}  // namespace nesl::flattening
