#include "nesl/library.hpp"

#include <string>

#include "nesl/parser.hpp"

namespace nesl {

extern const char* const embedded_library_nesl;

std::string_view embedded_library_text() { return embedded_library_nesl; }

Library load_library(const Basis& basis) {
  Library library;
  library.program = parse_program(
      std::make_shared<SourceFile>("basis.nesl", std::string(embedded_library_text())));
  library.checked = check_program(library.program, basis);
  return library;
}

}  // namespace nesl
