// The library reference (reference.hpp): every built-in documented, every documented example
// giving its value when the session runs it, and the pieces describe is made of.
#include <catch2/catch.hpp>

#include <memory>
#include <sstream>

#include "nesl/basis.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/reference.hpp"
#include "nesl/session.hpp"

namespace {

std::shared_ptr<nesl::SourceFile> text(std::string content) {
  return std::make_shared<nesl::SourceFile>("test.types", std::move(content));
}

}  // namespace

TEST_CASE("every built-in has a family and a meaning", "[reference]") {
  const nesl::Basis basis = nesl::load_embedded_basis();
  REQUIRE(basis.declared.size() == basis.signatures.size());
  REQUIRE(basis.descriptions.size() == basis.signatures.size());
  CHECK(basis.declared.size() > 200);
  const std::vector<std::string> problems = nesl::undocumented_builtins(basis);
  for (const std::string& problem : problems) UNSCOPED_INFO(problem);
  CHECK(problems.empty());
}

TEST_CASE("a built-in without its documentation is reported", "[reference]") {
  const nesl::Basis basis = nesl::parse_basis(text(
      "documented(x) : int -> int \"[arithmetic] One more than x. Example: documented(1) = 2\"\n"
      "bare(x) : int -> int\n"
      "familyless : int \"Only a meaning.\"\n"
      "unknown_family : int \"[nonsense] A meaning.\"\n"
      "no_value : int \"[constant] A meaning. Example: no_value\"\n"));
  CHECK(nesl::undocumented_builtins(basis) ==
        std::vector<std::string>{"bare: no documentation string giving its meaning",
                                 "familyless: no known [family] at the start of its documentation",
                                 "unknown_family: no known [family] at the start of its documentation",
                                 "no_value: an example without ` = VALUE`"});
}

TEST_CASE("basis.types entries take parameters and a documentation string over several lines",
          "[reference]") {
  const nesl::Basis basis = nesl::parse_basis(text(
      "% a comment %\n"
      "++(v, w) : ([a], [a]) -> [a] :: (a in any)\n"
      "  \"[manipulate] v, then w.\n"
      "   Example: [1] ++ [2] = [1, 2]\"\n"
      "pi : float \"[constant] Pi.\"\n"));
  CHECK(basis.declared == std::vector<std::string>{"++", "pi"});
  CHECK(nesl::builtin_signature(basis, "++") == "v ++ w : ([a], [a]) -> [a] :: (a in any)");
  CHECK(nesl::builtin_signature(basis, "pi") == "pi : float");
  CHECK(nesl::describe_builtin(basis, "++") ==
        "v ++ w : ([a], [a]) -> [a] :: (a in any)\n  v, then w.\n  Example: [1] ++ [2] = [1, 2]\n");
  CHECK_FALSE(nesl::describe_builtin(basis, "+").has_value());
  // Another entry on the line where the documentation ends is refused, as after a type.
  CHECK_THROWS_AS(nesl::parse_basis(text("a : int \"[constant] A.\" b : int\n")), nesl::CompileError);
}

TEST_CASE("a documentation string's family, meaning and examples", "[reference]") {
  const nesl::Documentation doc = nesl::parse_documentation(
      "[search] The index of x,\n   or -1. Example: let y = 1 in find(y, [1]) = 0\n   Example: find(2, [1]) = -1");
  CHECK(doc.family == "search");
  CHECK(doc.meaning == "The index of x, or -1.");
  REQUIRE(doc.examples.size() == 2);
  CHECK(doc.examples[0].expression == "let y = 1 in find(y, [1])");
  CHECK(doc.examples[0].value == "0");
  CHECK(doc.examples[1].expression == "find(2, [1])");
  CHECK(doc.examples[1].value == "-1");
  // A user's documentation string, without a family, is all meaning.
  CHECK(nesl::parse_documentation("Squares x.").meaning == "Squares x.");
  CHECK(nesl::parse_documentation("Squares x.").family.empty());
}

TEST_CASE("misspelt names get the built-ins they may mean", "[reference]") {
  const std::vector<std::string> names = nesl::load_embedded_basis().declared;
  CHECK(nesl::similar_names("odd", names) == std::vector<std::string>{"oddp"});
  CHECK(nesl::similar_names("lenght", names) == std::vector<std::string>{"length"});
  CHECK(nesl::similar_names("to_upper", names) == std::vector<std::string>{"uppercase"});
  CHECK(nesl::similar_names("qqqqqq", names).empty());
  // A word is not taken for an operator one letter away, nor a symbol for anything.
  CHECK(nesl::similar_names("t", names).empty());
  CHECK(nesl::similar_names("{", names).empty());
  // A name of other languages gets the checker's hint; a slip, the closest names.
  CHECK(nesl::unknown_name_message("odd", names) ==
        "describe: no function, operator, constant or variable is named 'odd' (did you mean 'oddp'?)");
  CHECK(nesl::unknown_name_message("lenght", names) ==
        "describe: no function, operator, constant or variable is named 'lenght' (did you mean 'length'?)");
  CHECK(nesl::unknown_name_message("print_str", names) ==
        "describe: no function, operator, constant or variable is named 'print_str' (did you mean 'print_char', "
        "'print_string' or 'print'?)");
}

// Each example as a form of its own in a session: it must print `it = VALUE : TYPE`.
TEST_CASE("every example in the documentation gives its value", "[reference]") {
  auto basis = std::make_shared<const nesl::Basis>(nesl::load_embedded_basis());
  int examples = 0;
  for (const std::string& name : basis->declared) {
    const nesl::Documentation doc = nesl::parse_documentation(basis->descriptions.at(name).documentation);
    for (const nesl::DocumentationExample& example : doc.examples) {
      std::ostringstream out, errors;
      nesl::SessionSettings settings;
      settings.vm.threads = 1;
      nesl::Session session(basis, settings, out, errors);
      INFO(name << ": " << example.expression);
      try {
        session.run(nesl::parse_program(std::make_shared<nesl::SourceFile>(name, example.expression + ";")));
      } catch (const nesl::CompileError& error) {
        errors << nesl::format_diagnostic(error);
      }
      const std::string expected = "it = " + example.value + " : ";
      INFO("printed " << out.str() << errors.str());
      CHECK(out.str().starts_with(expected));
      ++examples;
    }
  }
  CHECK(examples > 150);
}
