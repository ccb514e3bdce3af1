// The result types `nesl --vcode` writes at the end of the VCODE and `vinterp --print-nesl` reads
// back: what the comment says, that it reads back to types that read and print the same values,
// and what is not such a comment.
#include <catch2/catch.hpp>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/parser.hpp"
#include "nesl/result_reader.hpp"
#include "nesl/result_types.hpp"
#include "nesl/value_printer.hpp"

namespace {

nesl::CheckedProgram checked(const std::string& text) {
  static const nesl::Basis basis = nesl::load_embedded_basis();
  const nesl::Program program = nesl::parse_program(std::make_shared<nesl::SourceFile>("t.nesl", text));
  return nesl::check_program(program, basis);
}

nesl::ResultTypes result_types(const nesl::CheckedProgram& program) {
  return {program.expressions, program.datatype_constructors};
}

std::string refusal(const std::string& comment) {
  try {
    nesl::read_result_types(comment);
  } catch (const nesl::ResultError& e) {
    return e.what();
  }
  return "(read)";
}

}  // namespace

TEST_CASE("the comment names each result's type and the datatypes they hold", "[repl]") {
  const nesl::CheckedProgram program = checked(
      "datatype inner(int, bool);\n"
      "datatype labeled(a, [char], inner) :: (a in any);\n"
      "function g(x) = x + 1;\n"
      "x = 2;\n"
      "[g(x)];\n"
      "(1, 2.5, `c);\n"
      "[labeled(2.5, \"yy\", inner(1, f))];\n");
  CHECK(nesl::result_types_comment(result_types(program)) ==
        "{ NESL result types (vinterp --print-nesl):\n"
        "  datatype labeled('a) = ('a, ([char], inner))\n"
        "  datatype inner = (int, bool)\n"
        "  it : [int]\n"
        "  it : (int, (float, char))\n"
        "  it : [labeled(float)]\n"
        "}\n");
}

TEST_CASE("the comment read back gives types that read and print the stack as the program's", "[repl]") {
  const nesl::CheckedProgram program = checked(
      "datatype pair_of(a, a) :: (a in any);\n"
      "datatype labeled(a, [char], pair_of(a)) :: (a in any);\n"
      "[[1, 2], [] int];\n"
      "labeled(t, \"x\", pair_of(f, t));\n"
      "(\"ab\", [2.5]);\n");
  const std::string stack =
      "[ 2 ]\n[ 2 0 ]\n( 1 2 )\n"
      "( T )\n[ 1 ]\n( 120 )\n( F )\n( T )\n"
      "[ 2 ]\n( 97 98 )\n[ 1 ]\n( 2.50000000000000e+00 )\n";
  const std::string vcode = "FUNC MAIN1_1\nRET\n" + nesl::result_types_comment(result_types(program)) + "\n \n";
  const std::optional<nesl::ResultTypes> read = nesl::read_result_types(vcode);
  REQUIRE(read);
  REQUIRE(read->results.size() == 3);
  std::vector<std::string> printed;
  for (const nesl::Value& value : nesl::read_results(stack, read->results, read->constructors))
    printed.push_back(nesl::print_value(value));
  CHECK(printed == std::vector<std::string>{"[[1, 2], []]", "labeled(T, \"x\", pair_of(F, T))", "(\"ab\", [2.5])"});
  CHECK(nesl::print_type(read->results[1], true) == "labeled(bool)");
  CHECK(nesl::print_type(read->results[2], true) == "[char], [float]");
  // As the program's own types read it.
  const nesl::ResultTypes own = result_types(program);
  std::vector<std::string> own_printed;
  for (const nesl::Value& value : nesl::read_results(stack, own.results, own.constructors))
    own_printed.push_back(nesl::print_value(value));
  CHECK(own_printed == printed);
}

TEST_CASE("VCODE that does not end in the comment has no result types", "[repl]") {
  CHECK_FALSE(nesl::read_result_types("FUNC MAIN1_1\nRET\n"));
  CHECK_FALSE(nesl::read_result_types("{ a comment }\nFUNC MAIN1_1\nRET\n{ another }\n"));
  // The comment must be the last thing in the file.
  CHECK_FALSE(nesl::read_result_types("{ NESL result types (vinterp --print-nesl):\n  it : int\n}\nFUNC MAIN1_1\nRET\n"));
  CHECK(nesl::read_result_types("FUNC MAIN1_1\nRET\n{ NESL result types (vinterp --print-nesl):\n}\n")->results.empty());
}

TEST_CASE("a comment of result types that cannot be read is refused, naming its line", "[repl]") {
  const std::string head = "{ NESL result types (vinterp --print-nesl):\n  ";
  CHECK(refusal(head + "it : [int\n}") ==
        "the NESL result types at the end of the VCODE cannot be read: ']' expected in '[int'");
  CHECK(refusal(head + "it : int int\n}") ==
        "the NESL result types at the end of the VCODE cannot be read: unexpected 'i' in 'int int'");
  CHECK(refusal(head + "x = 5\n}") ==
        "the NESL result types at the end of the VCODE cannot be read: 'it : TYPE' or 'datatype' expected in 'x = 5'");
  CHECK(refusal(head + "datatype d('a) = ('b, int)\n}") ==
        "the NESL result types at the end of the VCODE cannot be read: unknown parameter 'b in '('b, int)'");
  CHECK(refusal(head + "datatype d(a) = (a, int)\n}") ==
        "the NESL result types at the end of the VCODE cannot be read: a parameter 'a expected in 'datatype d(a) = (a, int)'");
}
