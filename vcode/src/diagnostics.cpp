#include "vcode/diagnostics.hpp"

namespace vcode {

std::string format_diagnostic(const std::string& file, const Diagnostic& diagnostic) {
  return file + ":" + std::to_string(diagnostic.where.line) + ":" +
         std::to_string(diagnostic.where.column) + ": " + diagnostic.message;
}

static std::string join(const std::string& file, const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += format_diagnostic(file, d);
  }
  return text;
}

LoadError::LoadError(const std::string& file, std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(file, diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace vcode
