#include "vcode/op.hpp"

#include <string>
#include <unordered_map>

namespace vcode {

std::optional<Op> find_op(std::string_view word) {
  static const std::unordered_map<std::string_view, Op> by_spelling = [] {
    std::unordered_map<std::string_view, Op> table;
    for (std::size_t i = 0; i < op_count; ++i) table.emplace(op_table[i].spelling, Op(i));
    return table;
  }();
  auto found = by_spelling.find(word);
  if (found == by_spelling.end()) return std::nullopt;
  return found->second;
}

std::string_view keyword_name(TypeKeyword t) {
  switch (t) {
    case TypeKeyword::Int: return "INT";
    case TypeKeyword::Bool: return "BOOL";
    case TypeKeyword::Float: return "FLOAT";
    case TypeKeyword::Segdes: return "SEGDES";
    case TypeKeyword::Char: return "CHAR";
  }
  return "?";
}

}  // namespace vcode
