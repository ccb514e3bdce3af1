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

CompileError CompileError::extended(const std::string& more) const {
  CompileError result(Location{}, message_ + more);
  result.where_ = where_;
  result.file_name_ = file_name_;
  result.source_line_ = source_line_;
  return result;
}

std::string format_diagnostic(const CompileError& error) {
  const Location& at = error.where();
  if (error.file_name().empty()) return "nesl: error: " + error.message() + "\n";
  return format_located(error.file_name(), at.line, at.column, error.source_line(), "error",
                        error.message());
}

std::string format_located(const std::string& file, int line, int column, const std::string& source_line,
                           const std::string& kind, const std::string& message) {
  std::string out = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + kind +
                    ": " + message + "\n";
  out += source_line + "\n";
  // Tabs stay tabs so the caret lines up however the terminal expands them.
  std::string caret;
  for (int i = 0; i + 1 < column; ++i) {
    caret += (static_cast<std::size_t>(i) < source_line.size() && source_line[i] == '\t') ? '\t' : ' ';
  }
  out += caret + "^\n";
  return out;
}

}  // namespace nesl
