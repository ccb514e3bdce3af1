// A NESL source text, and the positions in it that tokens, syntax trees and diagnostics refer to.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nesl {

class SourceFile {
 public:
  // `generated`: text the compiler wrote (a value written back as a literal), which no one is
  // shown as the place of anything.
  SourceFile(std::string name, std::string text, bool generated = false);

  const std::string& name() const { return name_; }
  bool generated() const { return generated_; }
  const std::string& text() const { return text_; }
  // The text of a 1-based line, without its line break; empty past the end.
  std::string_view line_text(int line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
  bool generated_ = false;
};

// A 1-based line and byte column in a source file; file is null for positions nobody wrote.
struct Location {
  const SourceFile* file = nullptr;
  int line = 0;
  int column = 0;
};

// Reads a whole file; throws CompileError (diagnostics.hpp) when it cannot be read.
std::shared_ptr<SourceFile> read_source_file(const std::string& path);

}  // namespace nesl
