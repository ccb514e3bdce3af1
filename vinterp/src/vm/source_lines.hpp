// `--source-map`: where each VCODE line came from in the NESL source, as `nesl --vcode
// --source-map` writes it (a first comment line, then `VCODE_LINE NESL_LINE NESL_COLUMN
// NESL_FILE` per line compiled from the user's source). --profile groups its instructions by the
// NESL line they came from.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace vm {

class SourceLines {
 public:
  static constexpr std::int32_t kNone = -1;

  // Throws std::runtime_error naming the map's line that is not `VCODE_LINE NESL_LINE NESL_COLUMN
  // NESL_FILE`.
  static SourceLines read(std::istream& in);

  // The NESL line VCODE line `line` (1-based) came from, as an index into places(); kNone where
  // the map has no entry (built-in functions, code the compiler adds).
  std::int32_t place_of(int line) const {
    return line >= 1 && static_cast<std::size_t>(line) <= place_of_line_.size()
               ? place_of_line_[static_cast<std::size_t>(line) - 1]
               : kNone;
  }
  // Each NESL line as FILE:LINE, in the order the map first names them.
  const std::vector<std::string>& places() const { return places_; }

 private:
  std::vector<std::int32_t> place_of_line_;
  std::vector<std::string> places_;
};

}  // namespace vm
