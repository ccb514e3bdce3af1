// Tests of the NESL program generator (nesl_program_generator.hpp) that need no interpreter: its
// programs type-check (what `nesl --check` does), it reaches every feature it promises, the same
// seed gives the same text, avoided features stay out; and the known-bugs list reads.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/source.hpp"
#include "nesl_known_bugs.hpp"
#include "nesl_program_generator.hpp"

namespace {

constexpr std::uint64_t programs = 200;

// Parses and type-checks one program; the diagnostic when it fails.
std::string check_problem(const std::string& text, const nesl::Basis& basis) {
  try {
    const nesl::Program program = nesl::parse_program(std::make_shared<nesl::SourceFile>("fuzz.nesl", text));
    nesl::check_program(program, basis);
    return "";
  } catch (const nesl::CompileError& error) {
    return nesl::format_diagnostic(error);
  }
}

}  // namespace

TEST_CASE("every generated NESL program type-checks", "[nesl-fuzz]") {
  const nesl::Basis basis = nesl::load_embedded_basis();
  for (std::uint64_t seed = 1; seed <= programs; ++seed) {
    const auto program = fuzz::generate_nesl_program(seed);
    INFO("seed " << seed << "\n" << program.text);
    CHECK(check_problem(program.text, basis).empty());
  }
}

TEST_CASE("the NESL generator reaches every feature it promises", "[nesl-fuzz]") {
  std::map<std::string, int> counts;
  for (std::uint64_t seed = 1; seed <= 2 * programs; ++seed)
    for (const auto& feature : fuzz::generate_nesl_program(seed).features) ++counts[feature];
  const std::set<std::string> promised = {
      "if", "let", "let_tuple", "element", "call", "arith", "mul", "div", "rem", "mod", "power", "minmax",
      "abs_negate", "length", "sum", "count", "max_val", "max_index", "median", "float_to_int", "char_code", "btoi",
      "gcd", "shift", "bitwise", "isqrt", "int_to_float", "sqrt_ln", "trig", "product", "compare", "logic", "not",
      "parity", "all_any", "sign", "digitp", "code_char", "case", "sequence", "empty", "apply_to_each",
      "two_generators", "filter", "filter_short", "append", "cons_snoc", "reverse", "rotate", "odd_even_elts",
      "take_drop", "dist", "gather", "flatten", "sort", "scan", "range", "index", "rank", "enumerate", "split",
      "bottop", "zip", "map_function", "tuple", "head_rest", "unzip", "function", "recursion_counter",
      "recursion_divide", "recursion_quicksort", "unsafe", "function_expression", "map_function_expression",
      "free_index", "free_length", "free_gather", "free_update", "shared_apply_to_each", "shared_copy", "shared_two",
      "shared_call", "shared_outer_element", "shared_nested", "shared_in_if", "recursion_lookup",
      "recursion_shared_counter"};
  for (const auto& feature : promised) {
    INFO("feature " << feature);
    CHECK(counts[feature] > 0);
  }
  for (const auto& [feature, count] : counts) {
    INFO("a feature the test does not list: " << feature);
    CHECK(promised.count(feature) == 1);
  }
}

TEST_CASE("the same seed gives the same NESL program", "[nesl-fuzz]") {
  for (std::uint64_t seed : {1ull, 77ull, 123456789ull}) {
    CHECK(fuzz::generate_nesl_program(seed).text == fuzz::generate_nesl_program(seed).text);
    CHECK(fuzz::generate_nesl_program(seed).text != fuzz::generate_nesl_program(seed + 1).text);
  }
}

TEST_CASE("avoided features stay out of generated NESL programs", "[nesl-fuzz]") {
  fuzz::NeslGeneratorOptions options;
  options.avoid = {"apply_to_each", "recursion_quicksort", "two_generators", "sort"};
  const nesl::Basis basis = nesl::load_embedded_basis();
  for (std::uint64_t seed = 1; seed <= programs; ++seed) {
    const auto program = fuzz::generate_nesl_program(seed, options);
    INFO("seed " << seed << "\n" << program.text);
    for (const auto& avoided : options.avoid) CHECK(program.features.count(avoided) == 0);
    CHECK(program.text.find("function qs") == std::string::npos);
    CHECK(check_problem(program.text, basis).empty());
  }
}

TEST_CASE("the known NESL bugs list reads and names existing programs", "[nesl-fuzz]") {
  const auto bugs = fuzz::load_known_nesl_bugs(NESL_FUZZ_KNOWN_BUGS);
  for (const auto& bug : bugs) {
    INFO("[" << bug.name << "]");
    CHECK(std::filesystem::exists(bug.program));
    CHECK(!bug.why.empty());
  }
}
