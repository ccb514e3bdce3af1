#include "value.hpp"

namespace vm {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Int: return "Int";
    case Kind::Float: return "Float";
    case Kind::Bool: return "Bool";
    case Kind::Segdes: return "Segdes";
    case Kind::Pair: return "Pair";
  }
  return "?";
}

Kind kind_of(vcode::TypeKeyword keyword) {
  switch (keyword) {
    case vcode::TypeKeyword::Int: return Kind::Int;
    case vcode::TypeKeyword::Bool: return Kind::Bool;
    case vcode::TypeKeyword::Float: return Kind::Float;
    case vcode::TypeKeyword::Segdes: return Kind::Segdes;
    case vcode::TypeKeyword::Char: return Kind::Int;
  }
  return Kind::Int;
}

}  // namespace vm
