#include "minimize.hpp"

#include <algorithm>
#include <vector>

namespace fuzz {

namespace {

std::string join(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

}  // namespace

std::string minimize_lines(const std::string& text, const std::function<bool(const std::string&)>& still_fails,
                           int max_tests) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::size_t parts = 2;
  int tests = 0;
  while (lines.size() >= 2 && tests < max_tests) {
    const std::size_t chunk = (lines.size() + parts - 1) / parts;
    bool removed = false;
    for (std::size_t first = 0; first < lines.size() && tests < max_tests; first += chunk) {
      std::vector<std::string> candidate(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(first));
      candidate.insert(candidate.end(), lines.begin() + static_cast<std::ptrdiff_t>(std::min(first + chunk, lines.size())),
                       lines.end());
      ++tests;
      if (still_fails(join(candidate))) {
        lines = std::move(candidate);
        parts = std::max<std::size_t>(parts - 1, 2);
        removed = true;
        break;
      }
    }
    if (!removed) {
      if (parts >= lines.size()) break;
      parts = std::min(parts * 2, lines.size());
    }
  }
  return join(lines);
}

}  // namespace fuzz
