// A NESL value on the host, as the REPL holds a top-level result: scalars, sequences, tuples,
// datatypes and functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nesl {

struct Value {
  enum class Kind { Int, Float, Bool, Char, Sequence, Pair, Datatype, Function };
  Kind kind = Kind::Int;
  std::int64_t integer = 0;  // Int, Bool (0 or 1), Char (its code)
  double real = 0;           // Float
  // Sequence: the elements; Pair: left and right (tuples nest to the right); Datatype: its fields.
  std::vector<Value> children;
  std::string name;  // Datatype: its name; Function: the NESL expression that names it
  std::string parameters;  // Function: a pattern of its arguments' shape, `(arg1_, arg2_)`
  // Sequence: whether its elements are characters, so that an empty one still prints as "".
  bool of_chars = false;
  // Sequence: its element type as NESL source, so that an empty one can be written `[] TYPE`.
  std::string element_type;

  static Value of_int(std::int64_t x) { return scalar(Kind::Int, x); }
  static Value of_float(double x) {
    Value v;
    v.kind = Kind::Float;
    v.real = x;
    return v;
  }
  static Value of_bool(bool x) { return scalar(Kind::Bool, x ? 1 : 0); }
  static Value of_char(std::int64_t code) { return scalar(Kind::Char, code); }
  static Value sequence(std::vector<Value> elements, bool of_chars) {
    Value v;
    v.kind = Kind::Sequence;
    v.children = std::move(elements);
    v.of_chars = of_chars;
    return v;
  }
  static Value scalar(Kind kind, std::int64_t x) {
    Value v;
    v.kind = kind;
    v.integer = x;
    return v;
  }
  static Value pair(Value left, Value right) {
    Value v;
    v.kind = Kind::Pair;
    v.children.push_back(std::move(left));
    v.children.push_back(std::move(right));
    return v;
  }
  static Value datatype(std::string name, Value fields) {
    Value v;
    v.kind = Kind::Datatype;
    v.name = std::move(name);
    v.children.push_back(std::move(fields));
    return v;
  }
};

// A sequence of characters between double quotes with `"` and `\` escaped: NESL's string syntax,
// which is also how the classic's Lisp printed a string.
inline std::string quoted_chars(const Value& chars) {
  std::string text = "\"";
  for (const Value& c : chars.children) {
    const char ch = static_cast<char>(c.integer);
    if (ch == '"' || ch == '\\') text += '\\';
    text += ch;
  }
  return text + "\"";
}

}  // namespace nesl
