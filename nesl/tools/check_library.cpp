// nesl_check_library: type-checks basis.nesl with basis.types, as the build does before it embeds
// them: each library function declared with a type must have it, no built-in is declared in
// both files, and each has a documentation string with its family and meaning (reference.hpp).
// usage: nesl_check_library BASIS_TYPES BASIS_NESL
#include <iostream>

#include "nesl/basis.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/library.hpp"
#include "nesl/reference.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: nesl_check_library BASIS_TYPES BASIS_NESL\n";
    return 2;
  }
  try {
    nesl::Basis basis = nesl::parse_basis(nesl::read_source_file(argv[1]));
    nesl::add_library(basis, nesl::read_source_file(argv[2]));
    nesl::check_library(basis);
    const std::vector<std::string> undocumented = nesl::undocumented_builtins(basis);
    for (const std::string& problem : undocumented) std::cerr << "nesl_check_library: " << problem << "\n";
    if (!undocumented.empty()) return 1;
  } catch (const nesl::CompileError& error) {
    std::cerr << nesl::format_diagnostic(error);
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "nesl_check_library: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
