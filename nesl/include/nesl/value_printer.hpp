// Values as the classic REPL prints them: `[1, 2]`, `(5, 4.0)`, `"ab"`, `` `x ``, `point(1.0, 3.25)`.
#pragma once

#include <string>

#include "nesl/value.hpp"

namespace nesl {

// The classic's `print_length`: a sequence shows at most this many elements, then `,...`.
inline constexpr int kDefaultPrintLength = 100;

// A float as the classic's Lisp prints a double: the shortest digits that read back as it, plain
// from 1e-3 to 1e7 (`0.25`, `4.0`), else `1.23456789123457E8`, `1.0E-6`.
std::string format_float(double x);

// The value as the classic REPL prints it; a tuple at the top has its parentheses.
std::string print_value(const Value& value, int print_length = kDefaultPrintLength);

// `piece` appended to `out` as the classic's Lisp (CLISP, printing pretty) does it with `~a`: a
// piece of several lines starts on a line of its own.
void append_piece(std::string& out, const std::string& piece);

}  // namespace nesl
