// Errors in a NESL program: where, what was expected and found, rendered with the source line and a caret.
#pragma once

#include <stdexcept>
#include <string>

#include "nesl/source.hpp"

namespace nesl {

// Every error the front end reports about a program; the first one ends the compilation.
class CompileError : public std::runtime_error {
 public:
  CompileError(Location where, std::string message);

  const Location& where() const { return where_; }
  const std::string& message() const { return message_; }
  // Copied when the error is made: the source may be gone by the time it is reported.
  const std::string& file_name() const { return file_name_; }
  const std::string& source_line() const { return source_line_; }
  // The same error, at the same place, with `more` after its message.
  CompileError extended(const std::string& more) const;

 private:
  Location where_;
  std::string message_;
  std::string file_name_;
  std::string source_line_;
};

// "FILE:LINE:COL: error: MESSAGE", then the source line and a caret under the column.
std::string format_diagnostic(const CompileError& error);

// The same layout for any kind ("error", "note"): "FILE:LINE:COL: KIND: MESSAGE", the line, a caret.
std::string format_located(const std::string& file, int line, int column, const std::string& source_line,
                           const std::string& kind, const std::string& message);

}  // namespace nesl
