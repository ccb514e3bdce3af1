// vcode_fuzzgen: writes random valid VCODE programs (program_generator.hpp).
//
//   vcode_fuzzgen --seed N                 one program on stdout
//   vcode_fuzzgen --seed N --count K --out DIR   programs N..N+K-1 as DIR/fuzz_<seed>.vcode
//   vcode_fuzzgen --dictionary             a libFuzzer dictionary of VCODE tokens
//   --annotate: a comment before every instruction with the stack the generator expects
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "program_generator.hpp"

namespace {

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "vcode_fuzzgen: %s\nusage: vcode_fuzzgen --seed N [--count K --out DIR] | --dictionary\n",
               problem);
  std::exit(2);
}

std::uint64_t number(const char* text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*text == '\0' || *end != '\0') usage("not a number");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1, count = 1;
  bool seed_given = false, annotate = false;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) usage(("missing value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--seed") seed = number(value()), seed_given = true;
    else if (arg == "--count") count = number(value());
    else if (arg == "--out") out = value();
    else if (arg == "--annotate") annotate = true;
    else if (arg == "--dictionary") {
      for (const auto& token : fuzz::vcode_dictionary()) {
        std::string quoted = "\"";
        for (char c : token) {
          if (c == '"' || c == '\\') quoted += '\\', quoted += c;
          else if (c == '\n') quoted += "\\x0A";
          else quoted += c;
        }
        std::printf("%s\"\n", quoted.c_str());
      }
      return 0;
    } else usage(("unknown argument " + arg).c_str());
  }
  if (!seed_given) usage("--seed is required");
  if (out.empty()) {
    if (count != 1) usage("--count needs --out");
    std::fputs(fuzz::generate_program(seed, annotate).text.c_str(), stdout);
    return 0;
  }
  std::filesystem::create_directories(out);
  for (std::uint64_t s = seed; s < seed + count; ++s) {
    std::ofstream file(std::filesystem::path(out) / ("fuzz_" + std::to_string(s) + ".vcode"));
    file << fuzz::generate_program(s, annotate).text;
    if (!file) usage("cannot write the output directory");
  }
  return 0;
}
