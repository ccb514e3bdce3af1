// Tests of the NESL program generator (nesl_program_generator.hpp) that need no interpreter: its
// programs type-check (what `nesl --check` does), it reaches every feature it promises, the same
// seed gives the same text, avoided features stay out, sequences bound outside an apply-to-each
// are read inside it; and the known-bugs list reads.
#include <catch2/catch.hpp>

#include <algorithm>
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

// How a program reads variables bound outside the apply-to-each it reads them in: `v[i]`, `#v`,
// `v -> is` and a call's argument `f(.., v, ..)`, each with the deepest apply-to-each nesting it
// is met at (0: none met).
struct FreeReads {
  int index = 0, length = 0, gather = 0, call_argument = 0;
};

class FreeReadFinder {
 public:
  FreeReads in(const std::string& text) {
    const nesl::Program program = nesl::parse_program(std::make_shared<nesl::SourceFile>("fuzz.nesl", text));
    for (const auto& form : program.forms) {
      std::map<std::string, int> bound;
      if (form.kind == nesl::TopLevelForm::Kind::Function) {
        bind(*form.function.arguments, 0, bound);
        walk(*form.function.body, 0, bound);
      } else if (form.kind == nesl::TopLevelForm::Kind::Expression) {
        walk(*form.expression.value, 0, bound);
      }
    }
    return found_;
  }

 private:
  static void bind(const nesl::Expr& pattern, int depth, std::map<std::string, int>& bound) {
    if (pattern.kind == nesl::ExprKind::Variable) bound[pattern.text] = depth;
    for (const auto& child : pattern.children)
      if (child) bind(*child, depth, bound);
  }
  // The apply-to-each depth here when `e` is a variable bound outside the innermost one, else 0.
  static int free_depth(const nesl::Expr& e, int depth, const std::map<std::string, int>& bound) {
    if (e.kind != nesl::ExprKind::Variable || depth == 0) return 0;
    const auto it = bound.find(e.text);
    return it != bound.end() && it->second < depth ? depth : 0;
  }
  void walk(const nesl::Expr& e, int depth, std::map<std::string, int> bound) {
    const auto& c = e.children;
    switch (e.kind) {
      case nesl::ExprKind::Index: found_.index = std::max(found_.index, free_depth(*c[0], depth, bound)); break;
      case nesl::ExprKind::Unary:
        if (e.text == "#") found_.length = std::max(found_.length, free_depth(*c[0], depth, bound));
        break;
      case nesl::ExprKind::Binary:
        if (e.text == "->") found_.gather = std::max(found_.gather, free_depth(*c[0], depth, bound));
        break;
      case nesl::ExprKind::Call:
        for (const nesl::Expr* argument = c[1].get(); argument;) {
          const bool pair = argument->kind == nesl::ExprKind::Pair;
          const nesl::Expr& one = pair ? *argument->children[0] : *argument;
          found_.call_argument = std::max(found_.call_argument, free_depth(one, depth, bound));
          argument = pair ? argument->children[1].get() : nullptr;
        }
        break;
      case nesl::ExprKind::Let:
        for (const auto& binding : e.bindings) {
          walk(*binding.value, depth, bound);
          bind(*binding.pattern, depth, bound);
        }
        walk(*c[0], depth, bound);
        return;
      case nesl::ExprKind::Over:
        for (const auto& generator : e.bindings) walk(*generator.value, depth, bound);
        for (const auto& generator : e.bindings) bind(*generator.pattern, depth + 1, bound);
        for (const auto& child : c)
          if (child) walk(*child, depth + 1, bound);
        return;
      case nesl::ExprKind::Lambda: bind(*e.bindings[0].pattern, depth, bound); break;
      default: break;
    }
    for (const auto& child : c)
      if (child) walk(*child, depth, bound);
  }

  FreeReads found_;
};

}  // namespace

TEST_CASE("the free-read finder tells sequences bound outside an apply-to-each from inside", "[nesl-fuzz]") {
  const FreeReads outside = FreeReadFinder().in(
      "function g(t, i) = t[i];\n"
      "(let v = [1, 2] in {{v[j] + #v + sum(v -> [0]) : j in [0, 1]} : k in [1]}, {g(w, 0) : w in [[1]]}, "
      "{{g(w, 0) : j in [2]} : w in [[1]]});\n");
  CHECK(outside.index == 2);
  CHECK(outside.length == 2);
  CHECK(outside.gather == 2);
  CHECK(outside.call_argument == 2);
  const FreeReads inside = FreeReadFinder().in(
      "function g(t, i) = t[i];\n"
      "(let v = [1, 2] in v[0] + #v, {let u = [x] in u[0] + #u : x in [1]}, {g(w, 0) + w[0] : w in [[1]]});\n");
  CHECK(inside.index == 0);
  CHECK(inside.length == 0);
  CHECK(inside.gather == 0);
  CHECK(inside.call_argument == 0);
}

// The shapes the flattener shares rather than copies (nesl/FLATTENING.md), found in the text.
TEST_CASE("generated NESL programs read sequences bound outside an apply-to-each inside it", "[nesl-fuzz]") {
  std::map<std::string, int> programs_with;
  for (std::uint64_t seed = 1; seed <= programs; ++seed) {
    const FreeReads found = FreeReadFinder().in(fuzz::generate_nesl_program(seed).text);
    programs_with["index"] += found.index >= 1;
    programs_with["index nested"] += found.index >= 2;
    programs_with["index three deep"] += found.index >= 3;
    programs_with["length"] += found.length >= 1;
    programs_with["gather"] += found.gather >= 1;
    programs_with["call argument"] += found.call_argument >= 1;
    programs_with["call argument nested"] += found.call_argument >= 2;
  }
  for (const auto& [shape, count] : programs_with) {
    INFO(shape << ": " << count << " of " << programs << " programs");
    CHECK(count >= 5);
  }
}

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
