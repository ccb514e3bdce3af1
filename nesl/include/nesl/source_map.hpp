// Where each line of compiled VCODE came from in the NESL source: a runtime error is reported at
// the NESL expression that failed, and `nesl --vcode --source-map FILE` writes the map out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nesl/source.hpp"

namespace nesl {

// A place in the source, copied out of it (the compiler's sources may be gone when it is used).
struct SourcePoint {
  std::string file;
  int line = 0;
  int column = 0;
  // The source line, one copy for all the points on it (a long line has many).
  std::shared_ptr<const std::string> text;
  bool in_library = false;  // basis.nesl, which the user did not write
};

class SourceMap {
 public:
  SourceMap() = default;
  // From the place of each VCODE line (index 0 is line 1); `library` is basis.nesl's source.
  SourceMap(const std::vector<Location>& lines, const SourceFile* library);

  // The place VCODE line `line` (1-based) was compiled from; null when it has none.
  const SourcePoint* at(int line) const;

  // Of the VCODE lines a run stopped at, innermost first (the failing instruction, then the
  // calls that led there), the first compiled from the user's own source: an error inside a
  // built-in is reported where the program called it. Null when none is.
  const SourcePoint* user_point(const std::vector<int>& lines) const;

  // The map as text, one line for each VCODE line compiled from the user's source:
  // `VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE` (the file last, as it may hold spaces), after a
  // first line `# nesl source map: VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE`.
  std::string text() const;

 private:
  std::vector<std::int32_t> point_of_line_;  // an index into points_, -1 for none
  std::vector<SourcePoint> points_;
};

}  // namespace nesl
