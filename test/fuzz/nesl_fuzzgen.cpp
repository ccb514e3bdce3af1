// nesl_fuzzgen: writes random well-typed NESL programs (nesl_program_generator.hpp).
//
//   nesl_fuzzgen --seed N                        one program on stdout
//   nesl_fuzzgen --seed N --count K --out DIR    programs N..N+K-1 as DIR/seed_<N>.nesl
//   --avoid FEATURE (repeatable): leave a feature out, as nesl_difffuzz does for a known bug
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "nesl_program_generator.hpp"

namespace {

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "nesl_fuzzgen: %s\nusage: nesl_fuzzgen --seed N [--count K --out DIR] [--avoid FEATURE]...\n",
               problem.c_str());
  std::exit(2);
}

std::uint64_t number(const std::string& text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') usage("not a number: " + text);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1, count = 1;
  std::string out;
  fuzz::NeslGeneratorOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value for " + arg);
      return argv[++i];
    };
    if (arg == "--seed") seed = number(value());
    else if (arg == "--count") count = number(value());
    else if (arg == "--out") out = value();
    else if (arg == "--avoid") options.avoid.insert(value());
    else usage("unknown argument " + arg);
  }
  if (out.empty()) {
    if (count != 1) usage("--count needs --out");
    std::fputs(fuzz::generate_nesl_program(seed, options).text.c_str(), stdout);
    return 0;
  }
  std::filesystem::create_directories(out);
  for (std::uint64_t s = seed; s < seed + count; ++s) {
    std::ofstream file(std::filesystem::path(out) / ("seed_" + std::to_string(s) + ".nesl"));
    file << fuzz::generate_nesl_program(s, options).text;
    if (!file) usage("cannot write under " + out);
  }
  return 0;
}
