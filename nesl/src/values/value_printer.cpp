#include "nesl/value_printer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace nesl {
namespace {

std::string print(const Value& value, bool parenthesized, int print_length);

std::string print_sequence(const Value& value, int print_length) {
  if (value.of_chars) return quoted_chars(value);
  const auto& elements = value.children;
  if (elements.empty()) return "[]";
  if (print_length <= 0) return "[...]";
  const std::size_t shown = std::min(elements.size(), static_cast<std::size_t>(print_length));
  std::string text = "[";
  for (std::size_t i = 0; i < shown; ++i) {
    if (i) text += ", ";
    append_piece(text, print(elements[i], true, print_length));
  }
  return text + (shown < elements.size() ? ",...]" : "]");
}

std::string print(const Value& value, bool parenthesized, int print_length) {
  switch (value.kind) {
    case Value::Kind::Int: return std::to_string(value.integer);
    case Value::Kind::Float: return format_float(value.real);
    case Value::Kind::Bool: return value.integer ? "T" : "F";
    case Value::Kind::Char: return std::string("`") + static_cast<char>(value.integer);
    case Value::Kind::Sequence: return print_sequence(value, print_length);
    case Value::Kind::Pair: {
      std::string text = parenthesized ? "(" : "";
      append_piece(text, print(value.children[0], true, print_length));
      text += ", ";
      append_piece(text, print(value.children[1], false, print_length));
      return text + (parenthesized ? ")" : "");
    }
    case Value::Kind::Datatype: {
      std::string text = value.name + "(";
      append_piece(text, print(value.children[0], false, print_length));
      return text + ")";
    }
    case Value::Kind::Function: return "fn";  // as the classic prints a function
  }
  return "";
}

}  // namespace

void append_piece(std::string& out, const std::string& piece) {
  const bool at_line_start = out.empty() || out.back() == '\n';
  if (!at_line_start && piece.find('\n') != std::string::npos) out += '\n';
  out += piece;
}

std::string format_float(double x) {
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buffer[64];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, std::abs(x),
                           std::chars_format::scientific).ptr;
  const std::string scientific(buffer, end);  // d[.ddd]e±XX, the shortest digits
  const std::size_t e = scientific.find('e');
  std::string digits;
  for (std::size_t i = 0; i < e; ++i)
    if (scientific[i] != '.') digits += scientific[i];
  const int exponent = std::atoi(scientific.c_str() + e + 1);
  std::string text = x < 0 ? "-" : "";
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      std::string whole = digits.substr(0, std::min<std::size_t>(digits.size(), exponent + 1));
      whole.append(exponent + 1 - whole.size(), '0');
      std::string fraction = digits.size() > static_cast<std::size_t>(exponent + 1)
                                 ? digits.substr(exponent + 1)
                                 : "0";
      text += whole + "." + fraction;
    } else {
      text += "0." + std::string(-exponent - 1, '0') + digits;
    }
  } else {
    text += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
            std::to_string(exponent);
  }
  return text;
}

std::string print_value(const Value& value, int print_length) {
  return print(value, true, print_length);
}

}  // namespace nesl
