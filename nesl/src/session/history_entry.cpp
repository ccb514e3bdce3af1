#include "nesl/history_entry.hpp"

namespace nesl {

std::string history_entry(std::string_view typed) {
  constexpr std::string_view blanks = " \t\r\n";
  const std::size_t first = typed.find_first_not_of(blanks);
  if (first == std::string_view::npos) return "";
  return std::string(typed.substr(first, typed.find_last_not_of(blanks) + 1 - first));
}

}  // namespace nesl
