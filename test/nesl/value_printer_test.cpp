// The REPL's values: the final stack read back by type, printed as the classic REPL prints them
// (floats as its Lisp does, the 120-column layout, print_length), and written back as NESL source.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <limits>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/result_layout.hpp"
#include "nesl/result_reader.hpp"
#include "nesl/value_printer.hpp"
#include "nesl/value_source.hpp"

namespace {

using nesl::Value;

nesl::Type base(nesl::BaseType b) { return nesl::make_base(b); }
nesl::Type seq(nesl::Type t) { return nesl::make_sequence(std::move(t)); }

const std::map<std::string, nesl::Type> no_datatypes;

std::string shown(std::string_view stack, const nesl::Type& type,
                  const std::map<std::string, nesl::Type>& datatypes = no_datatypes) {
  return nesl::print_value(nesl::read_result(stack, type, datatypes));
}

// What the VM prints for a FLOAT, read back as the classic REPL reads it.
std::string float_from_stack(const char* text) { return nesl::format_float(std::strtod(text, nullptr)); }

std::string refusal(std::string_view stack, const nesl::Type& type) {
  try {
    nesl::read_result(stack, type, no_datatypes);
  } catch (const nesl::ResultError& e) {
    return e.what();
  }
  return "(read)";
}

}  // namespace

TEST_CASE("floats print as the classic's Lisp prints a double", "[repl]") {
  CHECK(nesl::format_float(0.25) == "0.25");
  CHECK(nesl::format_float(4.0) == "4.0");
  CHECK(nesl::format_float(100.0) == "100.0");
  CHECK(nesl::format_float(-0.5) == "-0.5");
  CHECK(nesl::format_float(0.0) == "0.0");
  CHECK(nesl::format_float(0.001) == "0.001");
  CHECK(nesl::format_float(9999999.0) == "9999999.0");
  CHECK(nesl::format_float(1e7) == "1.0E7");
  CHECK(nesl::format_float(1e-6) == "1.0E-6");
  CHECK(nesl::format_float(1e15) == "1.0E15");
  CHECK(nesl::format_float(6.02214076e23) == "6.02214076E23");
  CHECK(nesl::format_float(-1.602e-19) == "-1.602E-19");
  // The VM writes 15 significant digits; the shortest digits of that double are printed.
  CHECK(float_from_stack("1.23456789123457e+08") == "1.23456789123457E8");
  CHECK(float_from_stack("3.33333333333333e-01") == "0.333333333333333");
  CHECK(float_from_stack("1.41421356237310e+00") == "1.4142135623731");
  CHECK(float_from_stack("5.00208568057700e-02") == "0.05002085680577");
}

TEST_CASE("the final stack is read back by the expression's type", "[repl]") {
  using B = nesl::BaseType;
  CHECK(shown("( 5 )\n", base(B::Int)) == "5");
  CHECK(shown("( T )\n", base(B::Bool)) == "T");
  CHECK(shown("( 113 )\n", base(B::Char)) == "`q");
  CHECK(shown("( 2.50000000000000e-01 )\n", base(B::Float)) == "0.25");
  CHECK(shown("( -0.00000000000000e+00 )\n", base(B::Float)) == "0.0");
  CHECK(shown("[ 3 ]\n( 5 -3 0 )\n", seq(base(B::Int))) == "[5, -3, 0]");
  CHECK(shown("[ 3 ]\n[ 0 1 2 ]\n( 1 2 3 )\n", seq(seq(base(B::Int)))) == "[[], [1], [2, 3]]");
  CHECK(shown("[ 4 ]\n( 121 110 110 121 )\n", seq(base(B::Char))) == "\"ynny\"");
  CHECK(shown("[ 0 ]\n( )\n", seq(base(B::Char))) == "\"\"");
  CHECK(shown("[ 0 ]\n( )\n", seq(base(B::Int))) == "[]");
  CHECK(shown("[ 2 ]\n( 1 2 )\n( T T )\n", seq(nesl::make_pair(base(B::Int), base(B::Bool)))) ==
        "[(1, T), (2, T)]");
  // Tuples nest to the right: (5, (4.0, F)) prints flat, ((1, 2), 3) keeps the inner pair.
  CHECK(shown("( 5 )\n( 4.00000000000000e+00 )\n( F )\n",
              nesl::make_pair(base(B::Int), nesl::make_pair(base(B::Float), base(B::Bool)))) ==
        "(5, 4.0, F)");
  CHECK(shown("( 1 )\n( 2 )\n( 3 )\n",
              nesl::make_pair(nesl::make_pair(base(B::Int), base(B::Int)), base(B::Int))) ==
        "((1, 2), 3)");
}

TEST_CASE("datatypes are read through their constructor's fields", "[repl]") {
  auto source = std::make_shared<nesl::SourceFile>(
      "t.nesl", "datatype point(float, float);\ndatatype labeled(int, a) :: a in any;\n");
  nesl::Basis basis = nesl::parse_basis(std::make_shared<nesl::SourceFile>("basis", ""));
  nesl::Program program = nesl::parse_program(source);
  nesl::CheckedProgram checked = nesl::check_program(program, basis);
  const auto& datatypes = checked.datatype_constructors;
  nesl::Type point = nesl::make_datatype("point", {});
  CHECK(shown("( 1.00000000000000e+00 )\n( 3.25000000000000e+00 )\n", point, datatypes) ==
        "point(1.0, 3.25)");
  nesl::Type labeled = nesl::make_datatype("labeled", {base(nesl::BaseType::Char)});
  CHECK(shown("[ 2 ]\n( 1 2 )\n( 120 121 )\n", seq(labeled), datatypes) ==
        "[labeled(1, `x), labeled(2, `y)]");
}

TEST_CASE("results the classic REPL refuses", "[repl]") {
  using B = nesl::BaseType;
  const std::string unsupported = ": infinity and not-a-number (NAN) are not supported.";
  CHECK(refusal("[ 3 ]\n( 5.00000000000000e-01 inf -2.50000000000000e-01 )\n", seq(base(B::Float))) ==
        "Returning INF" + unsupported);
  CHECK(refusal("( -nan )\n", base(B::Float)) == "Returning -NAN" + unsupported);
  // No result at all: the program stopped at a runtime error.
  CHECK(refusal("", base(B::Int)) == "Error while running VCODE.");
  CHECK(refusal("( 1 2 )\n", base(B::Int)) == "Error while running VCODE.");
  CHECK(refusal("( 1 )\n( 2 )\n", base(B::Int)) == "Error while running VCODE.");
}

TEST_CASE("sequences print at most print_length elements", "[repl]") {
  std::vector<Value> elements;
  for (int i = 1; i <= 5; ++i) elements.push_back(Value::of_int(i));
  Value five = Value::sequence(elements, false);
  CHECK(nesl::print_value(five) == "[1, 2, 3, 4, 5]");
  CHECK(nesl::print_value(five, 3) == "[1, 2, 3,...]");
  CHECK(nesl::print_value(five, 0) == "[...]");
  std::vector<Value> chars;
  for (char c : std::string("a\"b\\")) chars.push_back(Value::of_char(c));
  CHECK(nesl::print_value(Value::sequence(chars, true)) == "\"a\\\"b\\\\\"");
}

TEST_CASE("results past 120 columns are laid out on lines of their own", "[repl]") {
  CHECK(nesl::layout_result("xs", "[5, -3, 0]", "[int]") == "xs = [5, -3, 0] : [int]\n");
  const std::string long_value = "[" + std::string(130, '1') + "]";
  CHECK(nesl::layout_result("it", long_value, "[int]") == "it = \n  " + long_value + "\n   : [int]\n");
  // A value of several lines starts on a line of its own, as CLISP prints it.
  CHECK(nesl::layout_result("it", "\"some text\nwith two lines\"", "[char]") ==
        "it\n = \n\"some text\nwith two lines\" : [char]\n");
}

TEST_CASE("values are written back as NESL literals", "[repl]") {
  using B = nesl::BaseType;
  CHECK(nesl::value_source(Value::of_int(-3)) == "(-3)");
  CHECK(nesl::value_source(Value::of_int(std::numeric_limits<std::int32_t>::min())) ==
        "(-2147483647 - 1)");
  CHECK(nesl::value_source(Value::of_float(0.1)) == "1.0e-01");
  CHECK(nesl::value_source(Value::of_float(-2.75)) == "(-2.75e+00)");
  CHECK(nesl::value_source(Value::of_char(' ')) == "code_char(32)");
  Value empty = nesl::read_result("[ 0 ]\n( )\n( )\n",
                                  seq(nesl::make_pair(base(B::Int), base(B::Bool))), no_datatypes);
  CHECK(nesl::value_source(empty) == "([] (int, bool))");
  Value nested = nesl::read_result("[ 2 ]\n[ 0 2 ]\n( 104 105 )\n", seq(seq(base(B::Char))), no_datatypes);
  CHECK(nesl::value_source(nested) == "[([] char), \"hi\"]");
  Value tuple = nesl::read_result("( 1 )\n( T )\n( 2.50000000000000e-01 )\n",
                                  nesl::make_pair(base(B::Int), nesl::make_pair(base(B::Bool), base(B::Float))),
                                  no_datatypes);
  CHECK(nesl::value_source(tuple) == "(1, t, 2.5e-01)");
  // Each parses back as a top-level binding.
  for (const Value& value : {empty, nested, tuple}) {
    auto source = std::make_shared<nesl::SourceFile>("v", "x = " + nesl::value_source(value) + ";");
    CHECK_NOTHROW(nesl::parse_program(source));
  }
}
