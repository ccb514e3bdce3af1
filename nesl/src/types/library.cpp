#include "nesl/library.hpp"

#include <string>
#include <utility>
#include <vector>

#include "nesl/diagnostics.hpp"

namespace nesl {

extern const char* const embedded_library_nesl;

std::string_view embedded_library_text() { return embedded_library_nesl; }

Library check_library(const Basis& basis) {
  if (!basis.library) throw CompileError({}, "internal error: a basis without its library");
  Library library;
  library.program = basis.library;
  library.checked = check_program(*library.program, basis);
  return library;
}

const Library& embedded_library(const Basis& basis) {
  // Keyed by the parsed library, which every copy of a Basis shares; specialize only reads the
  // library's types, so one checked copy serves every compilation. Kept for the whole process:
  // taking its trees apart at exit would cost a compilation a seventh of its time.
  static auto& checked = *new std::vector<std::unique_ptr<Library>>;
  for (const auto& library : checked) {
    if (library->program == basis.library) return *library;
  }
  checked.push_back(std::make_unique<Library>(check_library(basis)));
  return *checked.back();
}

}  // namespace nesl
