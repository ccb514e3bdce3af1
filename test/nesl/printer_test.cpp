// The printer: parentheses only where the grammar needs them, and print/reparse is a fixpoint.
#include <catch2/catch.hpp>

#include "nesl/parser.hpp"
#include "nesl/printer.hpp"

namespace {

std::string reprint(const std::string& text) {
  return nesl::print_program(
      nesl::parse_program(std::make_shared<nesl::SourceFile>("test.nesl", text)));
}

}  // namespace

TEST_CASE("the printer adds the parentheses the tree needs", "[nesl][printer]") {
  CHECK(reprint("((1 + 2)) * 3;") == "(1 + 2) * 3;\n");
  CHECK(reprint("((a, b), c);") == "(a, b), c;\n");
  CHECK(reprint("(a, (b, c));") == "a, b, c;\n");
  CHECK(reprint("a - (b - c);") == "a - (b - c);\n");
  CHECK(reprint("(a -> b) -> c;") == "(a -> b) -> c;\n");
  CHECK(reprint("(-x)[1];") == "(-x)[1];\n");
  CHECK(reprint("[(1, 2), (3, 4)];") == "[(1, 2), (3, 4)];\n");
  CHECK(reprint("f((a, b));") == "f(a, b);\n");
  CHECK(reprint("[] (int, bool);") == "[] (int, bool);\n");
  CHECK(reprint("add = (x, y) => x + y;") == "add = ((x, y) => x + y);\n");
  CHECK(reprint("map((i => i * 2), s);") == "map((i => i * 2), s);\n");
  CHECK(reprint("(x => let y = x in y)(1);") == "(x => let y = x in y)(1);\n");
  CHECK(reprint("function h(x) : ((a -> b), [a]) -> [b] = g(x);") ==
        "function h(x) : ((a -> b), [a]) -> [b] = g(x);\n");
}

TEST_CASE("print, reparse, print is a fixpoint", "[nesl][printer]") {
  const char* programs[] = {
      "function h(x, y) = let (a, b) = (x, y); c = {a + i : i in [0:b] | evenp(i)} in (c, #c);",
      "x = if a then let y = 1 in y else 2, 3;",
      "{(x, y) in zip(a, b) | x < y};",
      "s = \"tab\\\\ and \\\" quote\";",
      "datatype pair3(a, b, c) :: (a in any; b in number; c in ordinal);",
      "- - 1 + -(2 * 3) ^ 2;",
      "(float) n * 2.0 + float(m);",
      "let h = (a, b) => {a + x : x in b}; g = (y => h(y, [1])) in g(2.);",
      "function sq(x) : int -> int \"Squares x.\" = x * x;",
  };
  for (const char* text : programs) {
    INFO(text);
    std::string once = reprint(text);
    CHECK(reprint(once) == once);
  }
}
