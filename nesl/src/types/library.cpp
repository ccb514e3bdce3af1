#include "nesl/library.hpp"

#include <string>
#include <utility>
#include <vector>

#include "nesl/parser.hpp"

namespace nesl {

extern const char* const embedded_library_nesl;

std::string_view embedded_library_text() { return embedded_library_nesl; }

Library check_library(const Basis& basis, std::shared_ptr<SourceFile> library_source) {
  Library library;
  library.program = parse_program(std::move(library_source));
  library.checked = check_program(library.program, basis);
  return library;
}

const Library& embedded_library(const Basis& basis) {
  // Keyed by the basis file, which every copy of a Basis shares; specialize only reads the
  // library's types, so one checked copy serves every compilation.
  static std::vector<std::pair<std::shared_ptr<SourceFile>, std::unique_ptr<Library>>> checked;
  for (const auto& [source, library] : checked) {
    if (source == basis.source && source) return *library;
  }
  auto library = std::make_unique<Library>(
      check_library(basis, std::make_shared<SourceFile>("basis.nesl", std::string(embedded_library_text()))));
  checked.emplace_back(basis.source, std::move(library));
  return *checked.back().second;
}

}  // namespace nesl
