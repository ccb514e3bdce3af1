// Errors of the VCODE front end: each names the file, line and column and the offending token.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace vcode {

struct SourceLocation {
  int line = 0;    // 1-based physical line
  int column = 0;  // 1-based byte column
};

// One problem found while reading a program.
struct Diagnostic {
  SourceLocation where;
  std::string message;  // "syntax error: unexpected \"FOO\"", "error: unresolved function F"
};

// Thrown when a program cannot be loaded; `what()` is every diagnostic, one per line, as
// `FILE:LINE:COL: message`.
class LoadError : public std::runtime_error {
 public:
  LoadError(const std::string& file, std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// `FILE:LINE:COL: message`
std::string format_diagnostic(const std::string& file, const Diagnostic& diagnostic);

}  // namespace vcode
