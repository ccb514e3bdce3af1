#include "nesl/diagnostics.hpp"

namespace nesl {

CompileError::CompileError(Location where, std::string message)
    : std::runtime_error(message), where_(where), message_(std::move(message)) {
  if (where.file != nullptr) {
    file_name_ = where.file->name();
    source_line_ = std::string(where.file->line_text(where.line));
  }
  where_.file = nullptr;
}

std::string format_diagnostic(const CompileError& error) {
  const Location& at = error.where();
  if (error.file_name().empty()) return "nesl: error: " + error.message() + "\n";
  std::string out = error.file_name() + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) + ": error: " + error.message() + "\n";
  const std::string& line = error.source_line();
  out += std::string(line) + "\n";
  // Tabs stay tabs so the caret lines up however the terminal expands them.
  std::string caret;
  for (int i = 0; i + 1 < at.column; ++i) {
    caret += (static_cast<std::size_t>(i) < line.size() && line[i] == '\t') ? '\t' : ' ';
  }
  out += caret + "^\n";
  return out;
}

}  // namespace nesl
