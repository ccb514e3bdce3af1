// The classic REPL's layout of a result, `NAME = VALUE : TYPE`, broken into indented lines past 120 columns.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nesl {

// Lines of text, each with its indentation.
using LayoutLines = std::vector<std::pair<int, std::string>>;

// The classic's append-lines: `second` goes on the last line of `first` when their first
// line fits within `width` columns there; otherwise on lines of their own, indented as it.
LayoutLines append_layout(LayoutLines first, const LayoutLines& second, std::size_t width = 120);

// `name = value : type` as the classic REPL prints it, one or more lines, each ending in a
// newline: `it = [1, 2] : [int]`, or for a long value
//   it = 
//     [1, 2, ...]
//      : [int]
std::string layout_result(const std::string& name, const std::string& value, const std::string& type);

}  // namespace nesl
