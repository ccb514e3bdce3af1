#include "source_lines.hpp"

#include <map>
#include <sstream>
#include <stdexcept>

namespace vm {

SourceLines SourceLines::read(std::istream& in) {
  SourceLines lines;
  std::map<std::string, std::int32_t> known;
  int number = 0;
  for (std::string text; std::getline(in, text);) {
    ++number;
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    long long vcode_line = 0, nesl_line = 0, column = 0;
    std::string file;
    fields >> vcode_line >> nesl_line >> column >> std::ws;
    std::getline(fields, file);  // the rest: a file name may hold spaces
    if (fields.fail() || vcode_line < 1 || vcode_line > (1 << 30) || nesl_line < 1 || file.empty())
      throw std::runtime_error("line " + std::to_string(number) +
                               " is not VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE: " + text);
    const std::string place = file + ":" + std::to_string(nesl_line);
    const auto [found, fresh] = known.emplace(place, static_cast<std::int32_t>(lines.places_.size()));
    if (fresh) lines.places_.push_back(place);
    if (lines.place_of_line_.size() < static_cast<std::size_t>(vcode_line))
      lines.place_of_line_.resize(static_cast<std::size_t>(vcode_line), kNone);
    lines.place_of_line_[static_cast<std::size_t>(vcode_line) - 1] = found->second;
  }
  return lines;
}

}  // namespace vm
