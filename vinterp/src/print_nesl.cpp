#include "print_nesl.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>

#include "nesl/result_layout.hpp"
#include "nesl/result_reader.hpp"
#include "nesl/value_printer.hpp"

namespace vinterp {

std::optional<nesl::ResultTypes> result_types_or_report(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    if (auto types = nesl::read_result_types(text)) return types;
  } catch (const nesl::ResultError& e) {
    std::fprintf(stderr, "vinterp: --print-nesl: %s: %s\n", file.c_str(), e.what());
    return std::nullopt;
  }
  std::fprintf(stderr,
               "vinterp: --print-nesl: %s carries no NESL types for its results: compile it with "
               "nesl --vcode, which writes them at the end of the VCODE\n",
               file.c_str());
  return std::nullopt;
}

bool print_nesl_values(const std::string& stack, const nesl::ResultTypes& types, const std::string& file) {
  std::string text;
  try {
    const std::vector<nesl::Value> values = nesl::read_results(stack, types.results, types.constructors);
    for (std::size_t i = 0; i < values.size(); ++i)
      text += nesl::layout_result("it", nesl::print_value(values[i]), nesl::print_type(types.results[i], true));
  } catch (const nesl::ResultError& e) {
    std::fprintf(stderr, "vinterp: --print-nesl: %s: the final stack cannot be read as the NESL values its types describe: %s\n",
                 file.c_str(), e.what());
    return false;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return true;
}

}  // namespace vinterp
