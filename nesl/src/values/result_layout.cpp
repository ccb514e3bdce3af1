#include "nesl/result_layout.hpp"

#include "nesl/value_printer.hpp"

namespace nesl {

LayoutLines append_layout(LayoutLines first, const LayoutLines& second, std::size_t width) {
  if (second.empty()) return first;
  if (first.empty()) return second;
  auto& [indent, text] = first.back();
  const std::size_t length = static_cast<std::size_t>(indent) + text.size();
  const int base = indent;
  if (length + second.front().second.size() > width) {
    for (const auto& [more, line] : second) first.emplace_back(base + more, line);
    return first;
  }
  append_piece(text, second.front().second);
  for (std::size_t i = 1; i < second.size(); ++i)
    first.emplace_back(static_cast<int>(length) + second[i].first, second[i].second);
  return first;
}

std::string layout_result(const std::string& name, const std::string& value, const std::string& type) {
  // The classic folds from the right: name ++ (" = " ++ (value ++ (" : " ++ type))).
  const std::vector<std::string> pieces = {name, " = ", value, " : ", type};
  LayoutLines lines = {{0, pieces.back()}};
  for (std::size_t i = pieces.size() - 1; i-- > 0;) lines = append_layout({{0, pieces[i]}}, lines);
  std::string text;
  for (const auto& [indent, line] : lines) text += std::string(indent, ' ') + line + "\n";
  return text;
}

}  // namespace nesl
