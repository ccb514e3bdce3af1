#include "nesl/source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nesl/diagnostics.hpp"

namespace nesl {

SourceFile::SourceFile(std::string name, std::string text, bool generated)
    : name_(std::move(name)), text_(std::move(text)), generated_(generated) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > line_starts_.size()) return {};
  std::size_t begin = line_starts_[line - 1];
  std::size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::shared_ptr<SourceFile> read_source_file(const std::string& path) {
  // A directory opens as a stream that reads nothing: it would be an empty program.
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw CompileError(Location{}, "cannot read " + path + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(Location{}, "cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw CompileError(Location{}, "cannot read " + path + ": " + std::strerror(errno));
  return std::make_shared<SourceFile>(path, text.str());
}

}  // namespace nesl
