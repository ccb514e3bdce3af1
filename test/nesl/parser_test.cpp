// The parser: the classic's precedence table, every construct, and errors with positions.
#include <catch2/catch.hpp>

#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/printer.hpp"

namespace {

nesl::Program parse(const std::string& text) {
  return nesl::parse_program(std::make_shared<nesl::SourceFile>("test.nesl", text));
}

const nesl::Expr& expression(const nesl::Program& program, std::size_t index = 0) {
  return *program.forms.at(index).expression.value;
}

// A fully parenthesized rendering that shows the tree's shape. (Built with +=: GCC 12 warns
// falsely about `"(" + text`.)
std::string shape(const nesl::Expr& e) {
  using nesl::ExprKind;
  std::string out;
  switch (e.kind) {
    case ExprKind::Pair:
    case ExprKind::Binary:
      out += '(';
      out += shape(*e.children[0]);
      out += e.kind == ExprKind::Pair ? ", " : " " + e.text + " ";
      out += shape(*e.children[1]);
      out += ')';
      return out;
    case ExprKind::Unary:
      out += '(';
      out += e.text;
      out += shape(*e.children[0]);
      out += ')';
      return out;
    case ExprKind::Call:
    case ExprKind::Index:
      out += shape(*e.children[0]);
      out += e.kind == ExprKind::Call ? '(' : '[';
      out += shape(*e.children[1]);
      out += e.kind == ExprKind::Call ? ')' : ']';
      return out;
    default: return nesl::print_expression(e);
  }
}

std::string shape_of(const std::string& text) { return shape(expression(parse(text))); }

}  // namespace

TEST_CASE("binary operators follow the classic's precedence table", "[nesl][parser]") {
  CHECK(shape_of("1 + 2 * 3;") == "(1 + (2 * 3))");
  CHECK(shape_of("1 - 2 - 3;") == "((1 - 2) - 3)");
  CHECK(shape_of("a or b and c == d;") == "(a or (b and (c == d)))");
  CHECK(shape_of("a ++ b ++ c;") == "((a ++ b) ++ c)");
  CHECK(shape_of("x ^ 2 * y;") == "((x ^ 2) * y)");
  CHECK(shape_of("a <- b -> c;") == "(a <- (b -> c))");
  CHECK(shape_of("a -> b -> c;") == "(a -> (b -> c))");
  CHECK(shape_of("a, b, c;") == "(a, (b, c))");
  CHECK(shape_of("a + 1, b;") == "((a + 1), b)");
}

TEST_CASE("prefix operators bind tighter than binary ones, looser than calls", "[nesl][parser]") {
  CHECK(shape_of("-x ^ 2;") == "((-x) ^ 2)");
  CHECK(shape_of("#a[1];") == "(#a[1])");
  CHECK(shape_of("#a + 1;") == "((#a) + 1)");
  CHECK(shape_of("@f(x);") == "(@f(x))");
  CHECK(shape_of("- -x;") == "(-(-x))");
}

TEST_CASE("calls, indexing and juxtaposition", "[nesl][parser]") {
  CHECK(shape_of("f(a, b)[2];") == "f((a, b))[2]");
  CHECK(shape_of("(float) n * 2.0;") == "(float(n) * 2.0)");
  CHECK(shape_of("a[i][j];") == "a[i][j]");
}

TEST_CASE("every expression form parses and prints back", "[nesl][parser]") {
  const char* forms[] = {
      "if x < 0 then -1 else if x == 0 then 0 else 1;",
      "let a = 1; (b, c) = (2, 3) in a + b + c;",
      "let point(x, y) = p in x;",
      "{x * 2 : x in xs};",
      "{x in xs | x > 2};",
      "{a + b : a in xs; b in ys | a < b};",
      "{f(v) : v in v};",
      "[1, 2, 3];",
      "[] int;",
      "[] [int];",
      "[] (int, [char]);",
      "[1:10];",
      "[0:10:2];",
      "\"a\\\"b\", `c, 1.5e3;",
      "a <- [(0, `A)];",
      "a -> [0, 1];",
      "[(if a then b else c), d];",
      "(if a then b else c) + 1;",
  };
  for (const char* text : forms) {
    INFO(text);
    nesl::Program program = parse(text);
    REQUIRE(program.forms.size() == 1);
    CHECK(nesl::print_form(program.forms[0]) == text);
  }
}

TEST_CASE("top-level forms", "[nesl][parser]") {
  nesl::Program program = parse(
      "function sq(x) : a -> a :: (a in number) = x * x;\n"
      "datatype labeled(int, a) :: a in any $\n"
      "datatype point(float, float);\n"
      "xs = [1, 2];\n"
      "(a, b) = (1, 2);\n"
      "sq(3) $");
  REQUIRE(program.forms.size() == 6);
  using Kind = nesl::TopLevelForm::Kind;
  CHECK(program.forms[0].kind == Kind::Function);
  CHECK(program.forms[0].function.signature->context.at(0).type_class == "number");
  CHECK(program.forms[1].kind == Kind::Datatype);
  CHECK(program.forms[1].datatype.fields.context.size() == 1);
  CHECK(program.forms[3].kind == Kind::Binding);
  CHECK(program.forms[4].kind == Kind::Binding);
  CHECK(program.forms[5].kind == Kind::Expression);
  CHECK(nesl::print_program(program) ==
        "function sq(x) : a -> a :: (a in number) = x * x;\n"
        "datatype labeled(int, a) :: (a in any);\n"
        "datatype point(float, float);\n"
        "xs = [1, 2];\n"
        "(a, b) = (1, 2);\n"
        "sq(3);\n");
}

TEST_CASE("a let may end its bindings with a semicolon before in", "[nesl][parser]") {
  nesl::Program program = parse("let a = 1;\n    b = 2;\nin a + b;");
  CHECK(expression(program).bindings.size() == 2);
}

TEST_CASE("syntax errors say what was expected and where", "[nesl][parser]") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      parse(text);
    } catch (const nesl::CompileError& error) {
      return std::to_string(error.where().line) + ":" + std::to_string(error.where().column) +
             " " + error.message();
    }
    return "no error";
  };
  CHECK(error_of("function g() = 1;") ==
        "1:12 expected a parameter (functions take at least one), found ')'");
  CHECK(error_of("if a then b;") == "1:12 expected 'else' after the 'then' branch, found ';'");
  CHECK(error_of("x = 1\ny = 2;") == "2:3 expected ';' or '$' to end the binding, found '='");
  CHECK(error_of("{x : 5 in s};").rfind("1:6 expected a pattern", 0) == 0);
  CHECK(error_of("[1, 2;") == "1:6 expected ']' or ',' in the sequence, found ';'");
  CHECK(error_of("let x = 1 in") == "1:13 expected an expression, found end of file");
}
