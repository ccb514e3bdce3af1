// What `nesl FILE` prints after a runtime error besides the classic's lines: a note locating it
// in the source, the source line and a caret, and, for an error inside a function, another note
// at the call in the form. Tests that compare with the classic's output leave them out.
#pragma once

#include <string>
#include <string_view>

namespace nesl_test {

inline constexpr std::string_view kRuntimeNote = ": note: the runtime error came from here";
inline constexpr std::string_view kCallNote = ": note: called from here";

inline std::string without_runtime_notes(const std::string& output) {
  if (output.find(kRuntimeNote) == std::string::npos) return output;
  std::string kept;
  int skip = 0;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    const std::size_t next = end == std::string::npos ? output.size() : end + 1;
    const std::string_view line(output.data() + start, (end == std::string::npos ? output.size() : end) - start);
    if (skip > 0) {
      --skip;
    } else if ((line.size() > kRuntimeNote.size() && line.ends_with(kRuntimeNote)) ||
               (line.size() > kCallNote.size() && line.ends_with(kCallNote))) {
      skip = 2;
    } else {
      kept.append(line);
      kept += '\n';
    }
    start = next;
  }
  return kept;
}

}  // namespace nesl_test
