// Text between two brackets, for the printers of syntax trees and of types.
#pragma once

#include <string>

namespace nesl {

// Built piece by piece: `"(" + text + ")"` draws a false -Wrestrict from GCC 12.
inline std::string enclose(char open, const std::string& text, char close) {
  std::string out;
  out.reserve(text.size() + 2);
  out += open;
  out += text;
  out += close;
  return out;
}

}  // namespace nesl
