#include "nesl/value_source.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace nesl {
namespace {

std::string integer_source(std::int64_t x) {
  if (x >= 0) return std::to_string(x);
  // -2147483648 would lex as a positive literal that does not fit.
  if (x == std::numeric_limits<std::int32_t>::min()) return "(-2147483647 - 1)";
  return "(-" + std::to_string(-x) + ")";
}

std::string float_source(double x) {
  char buffer[64];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, std::abs(x),
                           std::chars_format::scientific).ptr;
  std::string text(buffer, end);  // d[.ddd]e±XX: shortest digits that read back exactly
  const std::size_t e = text.find('e');
  if (text.find('.') == std::string::npos) text.insert(e, ".0");
  return std::signbit(x) ? "(-" + text + ")" : text;
}

std::string char_source(std::int64_t code) {
  if (code > ' ' && code < 127) return std::string("`") + static_cast<char>(code);
  return "code_char(" + std::to_string(code) + ")";
}

std::string source(const Value& value, bool parenthesized) {
  switch (value.kind) {
    case Value::Kind::Int: return integer_source(value.integer);
    case Value::Kind::Float: return float_source(value.real);
    case Value::Kind::Bool: return value.integer ? "t" : "f";
    case Value::Kind::Char: return char_source(value.integer);
    case Value::Kind::Sequence: {
      if (value.children.empty()) return "([] " + value.element_type + ")";
      if (value.of_chars) return quoted_chars(value);
      std::string text = "[";
      for (std::size_t i = 0; i < value.children.size(); ++i)
        text += (i ? ", " : "") + source(value.children[i], true);
      return text + "]";
    }
    case Value::Kind::Pair: {
      std::string inside = source(value.children[0], true) + ", " + source(value.children[1], false);
      return parenthesized ? "(" + inside + ")" : inside;
    }
    case Value::Kind::Datatype: return value.name + "(" + source(value.children[0], false) + ")";
    case Value::Kind::Function: return parenthesized ? "(" + value.name + ")" : value.name;
  }
  return "";
}

}  // namespace

std::string value_source(const Value& value) { return source(value, true); }

}  // namespace nesl
