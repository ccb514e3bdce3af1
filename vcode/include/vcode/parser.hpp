// Parses VCODE text into a linked Program (spec/VCODE.md §3): calls and IF/ELSE/ENDIF are
// resolved at load time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vcode/program.hpp"

namespace vcode {

struct ParseOptions {
  // Receives non-fatal warnings (function redefinition), already formatted `FILE:L:C: ...`.
  std::vector<std::string>* warnings = nullptr;
};

// Parses and links `source`; throws LoadError listing every problem found.
Program parse_program(std::string_view source, const std::string& file_name,
                      const ParseOptions& options = {});

// Reads a file and parses it; a file that cannot be read throws std::runtime_error.
Program load_program(const std::string& path, const ParseOptions& options = {});

}  // namespace vcode
