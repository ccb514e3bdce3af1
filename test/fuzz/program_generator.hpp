// Random valid VCODE programs for differential fuzzing (test/fuzz/README.md).
//
// A program is generated against a model of the stack (stack_model.hpp), so every instruction
// finds operands of the right kinds, lengths and segment descriptors, and every value-dependent
// operand is safe by construction: divisors and RAND bounds are never 0 (nor -1 under INT_MIN),
// permutation and gather indices lie inside their segments, EXTRACT and REPLACE address
// non-empty segments, FPERMUTE writes every destination position, segment lengths are small and
// non-negative. The classic interpreter therefore runs every generated program without error.
// Programs use every vector opcode family, stack moves, IF/ELSE (also with an EXIT branch),
// CALL (also recursion bounded by a counter), PAIR/UNPAIR, WRITE, SRAND/RAND and the timer, empty
// segments and empty vectors, and FLOAT infinities, NaN, negative zero and denormals.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

// Written as the program's second line when it folds FLOAT values of any magnitude with + or *
// (whose result then depends on the grouping: see known_differences.txt).
inline constexpr std::string_view unordered_folds_marker = "{ fuzz: unordered-float-folds }";

struct GeneratedProgram {
  std::string text;
  bool unordered_float_folds = false;
};

// The program for `seed`; the same seed always gives the same text. With `annotate`, a comment
// before every instruction shows the stack the generator expects there (for debugging it).
GeneratedProgram generate_program(std::uint64_t seed, bool annotate = false);

// Tokens worth combining when mutating VCODE (a libFuzzer dictionary: one quoted token a line).
std::vector<std::string> vcode_dictionary();

}  // namespace fuzz
