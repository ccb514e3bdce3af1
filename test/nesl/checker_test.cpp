// The type checker: inference with type classes, datatypes, function arguments, the printed
// types, and type errors at their source. Most cases use a small basis written here, so that they
// test the checker and not the contents of basis.types.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/name_suggestions.hpp"
#include "nesl/parser.hpp"

namespace {

const char* const test_basis_text = R"(% a few built-ins for these tests %
+ : (a, a) -> a :: (a in number)
* : (a, a) -> a :: (a in number)
negate : a -> a :: (a in number)
< : (a, a) -> bool :: (a in ordinal)
== : (a, a) -> bool :: (a in ordinal)
and : (a, a) -> a :: (a in logical)
# : [a] -> int :: (a in any)
sum : [a] -> a :: (a in number)
float : int -> float
zip : ([a], [b]) -> [(a, b)] :: (a in any; b in any)
map : ((a -> b), [a]) -> [b] :: (a in any; b in any)
)";

const nesl::Basis& test_basis() {
  static const nesl::Basis basis =
      nesl::parse_basis(std::make_shared<nesl::SourceFile>("test.types", test_basis_text));
  return basis;
}

nesl::CheckedProgram check(const std::string& text, const nesl::Basis& basis = test_basis()) {
  return nesl::check_program(
      nesl::parse_program(std::make_shared<nesl::SourceFile>("test.nesl", text)), basis);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& form : check(text).forms) out.push_back(nesl::describe_form(form));
  return out;
}

std::string error_of(const std::string& text) {
  try {
    check(text);
  } catch (const nesl::CompileError& error) {
    return nesl::format_diagnostic(error);
  }
  return "no error";
}

}  // namespace

TEST_CASE("functions generalize over type classes", "[nesl][types]") {
  CHECK(lines("function sq(x) = x * x;") ==
        std::vector<std::string>{"sq = fn : a -> a :: (a in number)"});
  CHECK(lines("function lt(x, y) = x < y;") ==
        std::vector<std::string>{"lt = fn : (a, a) -> bool :: (a in ordinal)"});
  CHECK(lines("function first(x, y) = x;") ==
        std::vector<std::string>{"first = fn : (a, b) -> a :: (a in any; b in any)"});
}

TEST_CASE("classes meet: number and logical leave only int", "[nesl][types]") {
  CHECK(lines("function both(x) = (x + x) and x;") ==
        std::vector<std::string>{"both = fn : int -> int"});
  CHECK(lines("function g(x) = x * 2 < x;") == std::vector<std::string>{"g = fn : int -> bool"});
}

TEST_CASE("top-level functions are polymorphic at each use", "[nesl][types]") {
  auto checked = check("function id(x) = x; (id(1), id(2.5), id([t]));");
  CHECK(nesl::program_type(checked) == "int, float, [bool]");
}

TEST_CASE("bindings and expressions print as the REPL does, without values", "[nesl][types]") {
  CHECK(lines("xs = [1, 2]; {x + 1 : x in xs}; (1, (2.0, `c));") ==
        std::vector<std::string>{"xs : [int]", "it : [int]", "it : int, float, char"});
  CHECK(lines("(a, b) = (1, [2.0]); b;") ==
        std::vector<std::string>{"a : int", "b : [float]", "it : [float]"});
}

TEST_CASE("datatypes: constructors are functions and patterns take them apart", "[nesl][types]") {
  CHECK(lines("datatype point(float, float);\n"
              "datatype labeled(int, a) :: a in any $\n"
              "function px(p) = let point(x, y) = p in x;\n"
              "labeled(1, [t]);") ==
        std::vector<std::string>{"point = fn : (float, float) -> point",
                                 "labeled = fn : (int, a) -> labeled(a) :: (a in any)",
                                 "px = fn : point -> float", "it : labeled([bool])"});
}

TEST_CASE("functions are values that can be passed and called", "[nesl][types]") {
  CHECK(lines("function twice(f, x) = f(f(x)); twice(negate, 3); map(float, [1, 2]);") ==
        std::vector<std::string>{"twice = fn : ((a -> a), a) -> a :: (a in any)", "it : int",
                                 "it : [float]"});
}

TEST_CASE("a declared signature is the function's type and is checked", "[nesl][types]") {
  CHECK(lines("function inc(x) : int -> int = x + 1;") ==
        std::vector<std::string>{"inc = fn : int -> int"});
  CHECK(lines("function g(x) : [a] -> a :: (a in number) = sum(x);") ==
        std::vector<std::string>{"g = fn : [a] -> a :: (a in number)"});
  CHECK(error_of("function h(x) : a -> a = x + x;") ==
        "test.nesl:1:17: error: declared type of h: expected the type variable a in any, "
        "found a :: (a in number) from the body\n"
        "function h(x) : a -> a = x + x;\n"
        "                ^\n");
}

TEST_CASE("type errors point at the source", "[nesl][types]") {
  CHECK(error_of("x = 1;\n\"a\" + x;") ==
        "test.nesl:2:5: error: arguments of +: expected (a, a) :: (a in number), found ([char], int)\n"
        "\"a\" + x;\n"
        "    ^\n");
  CHECK(error_of("[1, t];") ==
        "test.nesl:1:5: error: sequence element (must match the first): expected int, found bool\n"
        "[1, t];\n"
        "    ^\n");
  CHECK(error_of("function g(x) = y;") ==
        "test.nesl:1:17: error: expected a defined name, found the unbound name 'y'\n"
        "function g(x) = y;\n"
        "                ^\n");
  CHECK(error_of("function g(x) = g(x, x);").find("arguments of g") != std::string::npos);
  CHECK(error_of("function g(h) = h(1) + h(t);") ==
        "test.nesl:1:26: error: argument of h: expected int, found bool\n"
        "function g(h) = h(1) + h(t);\n"
        "                         ^\n");
}

TEST_CASE("the embedded basis loads and types the built-ins", "[nesl][types][basis]") {
  nesl::Basis basis = nesl::load_embedded_basis();
  REQUIRE(!basis.signatures.empty());
  for (const char* name : {"+", "#", "++", "<-", "->", "dist", "plus_scan", "sum"}) {
    INFO(name);
    CHECK(basis.signatures.count(name) == 1);
  }
  auto checked = check("{x + 1 : x in [1:5]}; float(#[1, 2]) + sum([1.5]) ^ 2;", basis);
  CHECK(nesl::program_type(checked) == "[int], float");
}

TEST_CASE("the embedded basis is basis.types byte for byte", "[nesl][types][basis]") {
  std::ifstream in(NESL_BASIS_SOURCE, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  CHECK(nesl::embedded_basis_text() == text.str());
}

TEST_CASE("the names of other languages are not NESL's, and the names suggested for them are", "[nesl][checker]") {
  const nesl::Basis basis = nesl::load_embedded_basis();
  for (std::string_view name : nesl::other_language_names()) {
    INFO(name);
    CHECK(basis.signatures.count(name) == 0);
    // Each quoted name in the hint is a built-in.
    const std::string hint = nesl::other_language_hint(std::string(name));
    CHECK(!hint.empty());
    for (std::size_t open = hint.find('\''); open != std::string::npos; open = hint.find('\'', open + 1)) {
      const std::size_t close = hint.find('\'', open + 1);
      REQUIRE(close != std::string::npos);
      const std::string suggested = hint.substr(open + 1, close - open - 1);
      INFO(suggested);
      CHECK(basis.signatures.count(suggested) == 1);
      open = close;
    }
  }
  CHECK(nesl::other_language_hint("oddp").empty());
}

TEST_CASE("an unbound name suggests the closest name in scope within a slip or two", "[nesl][checker]") {
  const std::vector<std::string> names = {"values", "total", "sum", "lenght_of", "x"};
  CHECK(nesl::closest_name("valeus", names) == "values");  // two letters swapped
  CHECK(nesl::closest_name("totl", names) == "total");     // one dropped
  CHECK(nesl::closest_name("summ", names) == "sum");       // one added
  CHECK(nesl::closest_name("vxyzes", names).empty());      // too far
  CHECK(nesl::closest_name("y", names).empty());           // too short to guess
}
