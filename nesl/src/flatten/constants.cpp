#include "flatten/constants.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

using flat::Leaf;

vcode::Constant scalar(Leaf leaf, double value) {
  vcode::Constant c;
  c.type = flat::keyword_of(leaf);
  if (leaf == Leaf::Float) {
    c.floats.push_back(value);
  } else {
    c.ints.push_back(static_cast<std::int32_t>(value));
  }
  return c;
}

vcode::Constant zero_of(Leaf leaf) { return scalar(leaf, 0); }

vcode::Constant empty_vector(Leaf leaf) {
  vcode::Constant c;
  c.type = flat::keyword_of(leaf);
  c.vector_form = true;
  return c;
}

vcode::Constant literal(Leaf leaf, const std::string& text, const Location& where) {
  vcode::Constant c;
  c.type = flat::keyword_of(leaf);
  switch (leaf) {
    case Leaf::Float: c.floats.push_back(std::strtod(text.c_str(), nullptr)); break;
    case Leaf::Bool: c.ints.push_back(text == "T"); break;
    default: {
      errno = 0;
      const long long value = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE || value < INT32_MIN || value > INT32_MAX) {
        throw CompileError(where, "the integer " + text + " does not fit NESL's 32-bit int (" +
                                      std::to_string(INT32_MIN) + " to " + std::to_string(INT32_MAX) + ")");
      }
      c.ints.push_back(static_cast<std::int32_t>(value));
    }
  }
  return c;
}

vcode::Constant newline_delimiter() {
  vcode::Constant c = empty_vector(Leaf::Int);
  c.ints.push_back('\n');
  return c;
}

vcode::Constant characters(const std::string& text) {
  vcode::Constant c;
  c.type = vcode::TypeKeyword::Char;
  c.vector_form = true;
  for (char ch : text) c.ints.push_back(static_cast<signed char>(ch));
  return c;
}

}  // namespace nesl::flattening
