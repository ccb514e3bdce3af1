#include "run_limits.hpp"

#include <cctype>
#include <stdexcept>

namespace vinterp {

std::uint64_t parse_memory_size(const std::string& text) {
  const auto bad = [&] {
    return std::invalid_argument("--max-memory must be a positive size like 512M, 8G or 1000000 (got '" +
                                 text + "')");
  };
  std::size_t i = 0;
  std::uint64_t value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (value > (UINT64_MAX - 9) / 10) throw bad();
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) throw bad();
  std::string unit = text.substr(i);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (!unit.empty() && unit != "B") {
    const std::string prefixes = "KMGT";
    const auto at = prefixes.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (at == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) throw bad();
    shift = 10 * static_cast<int>(at + 1);
  }
  if (value == 0 || value > (UINT64_MAX >> shift)) throw bad();
  return value << shift;
}

std::size_t checked_call_depth(long long depth) {
  if (depth < 1) throw std::invalid_argument("--max-call-depth must be 1 or more");
  return static_cast<std::size_t>(depth);
}

}  // namespace vinterp
