// Random well-typed NESL programs for differential testing of the compiler (README.md here,
// "The NESL generator"). A program is built from its types down: each expression is generated
// for a type it must have, so every program type-checks, and every value-dependent operand is
// made safe where it is written (divisors are never 0, indices lie inside their sequence, lengths
// are small and non-negative). A few programs in "unsafe" mode also index without a guard, so
// that some of them end in a runtime error, which every backend must report alike.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace fuzz {

struct NeslGeneratorOptions {
  // Features the generator leaves out (the names of nesl_program_generator.cpp's `feature`
  // calls), so that a known compiler bug does not make every run fail.
  std::set<std::string> avoid;
};

struct GeneratedNeslProgram {
  // The functions, one a line, then the one top-level expression on the last line.
  std::string text;
  // Unguarded indexing was allowed: the program may end in a runtime error.
  bool unsafe = false;
  // The features it uses (the generator's production names, "unsafe", "two_generators", ...).
  std::set<std::string> features;
};

// The same seed and options give the same text.
GeneratedNeslProgram generate_nesl_program(std::uint64_t seed, const NeslGeneratorOptions& options = {});

}  // namespace fuzz
