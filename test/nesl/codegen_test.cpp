// Code generation: specialize, normalize, flatten and lower on small programs, and the verifier of
// each IR on programs broken on purpose, so that a verifier that accepts everything fails here.
#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <string>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/core.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/flat.hpp"
#include "nesl/flatten.hpp"
#include "nesl/library.hpp"
#include "nesl/flat_opt.hpp"
#include "nesl/lower.hpp"
#include "nesl/pipeline.hpp"
#include "nesl/normalize.hpp"
#include "nesl/parser.hpp"
#include "nesl/specialize.hpp"
#include "vcode/parser.hpp"
#include "vcode/printer.hpp"
#include "vcode/verify.hpp"

namespace {

// Everything a test needs to keep alive: the syntax tree the checked types point into.
struct Compiled {
  nesl::Program program;
  nesl::CheckedProgram checked;
  nesl::core::Program specialized;
  nesl::core::Program normalized;
  nesl::flat::Program flattened;
  std::string vcode;
};

const nesl::Basis& basis() {
  static const nesl::Basis embedded = nesl::load_embedded_basis();
  return embedded;
}

const nesl::Library& library() {
  return nesl::embedded_library(basis());
}

Compiled compile(const std::string& text) {
  Compiled c;
  c.program = nesl::parse_program(std::make_shared<nesl::SourceFile>("test.nesl", text));
  c.checked = nesl::check_program(c.program, basis());
  c.specialized = nesl::specialize(c.program, c.checked, library());
  c.normalized = nesl::normalize(c.specialized);
  c.flattened = nesl::flatten(c.normalized, {});
  c.vcode = vcode::print_program(nesl::lower(nesl::optimize_flat(c.flattened)).program);
  return c;
}

int count_named(const nesl::core::Program& program, const std::string& prefix) {
  int n = 0;
  for (const auto& f : program.functions) n += f.name.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

bool has_flat_function(const nesl::flat::Program& program, const std::string& prefix) {
  for (const auto& f : program.functions) {
    if (f.name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("specialize copies a polymorphic function once per concrete type", "[codegen]") {
  Compiled c = compile("function same(x) = x;\n(same(1), same(1.5), same(2), same([t]));\n");
  CHECK(count_named(c.specialized, "SAME_") == 3);
  CHECK(nesl::core::verify_program(c.specialized, false).empty());
  CHECK(nesl::print_type(c.specialized.main->type) == "int, float, int, [bool]");
}

TEST_CASE("specialize reaches basis.nesl functions and datatypes become their fields", "[codegen]") {
  Compiled c = compile("datatype pt(int, float);\nfunction x_of(p) = let pt(a, b) = p in a;\n"
                       "(x_of(pt(3, 1.0)), max(2, 7));\n");
  CHECK(count_named(c.specialized, "MAX_") == 1);
  CHECK(count_named(c.specialized, "X_OF_") == 1);
  CHECK(nesl::core::verify_program(c.specialized, false).empty());
}

TEST_CASE("normalize names every nested operand", "[codegen]") {
  Compiled c = compile("function inc(x) = x + 1;\ninc(inc(2) * 3);\n");
  CHECK_FALSE(nesl::core::verify_program(c.specialized, true).empty());
  CHECK(nesl::core::verify_program(c.normalized, true).empty());
}

TEST_CASE("the core verifier finds an unbound variable and a missing instance", "[codegen]") {
  nesl::core::Program broken;
  broken.main = nesl::core::make(nesl::core::Kind::Variable, nesl::make_base(nesl::BaseType::Int));
  broken.main->name = "nowhere";
  CHECK_FALSE(nesl::core::verify_program(broken, false).empty());
  auto call = nesl::core::make(nesl::core::Kind::Call, nesl::make_base(nesl::BaseType::Int));
  call->name = "MISSING_1";
  auto argument = nesl::core::make(nesl::core::Kind::Constant, nesl::make_base(nesl::BaseType::Int));
  argument->text = "1";
  call->children = {argument};
  broken.main = call;
  CHECK_FALSE(nesl::core::verify_program(broken, false).empty());
}

TEST_CASE("flatten gives a function called under apply-to-each a lifted twin", "[codegen]") {
  Compiled c = compile("function sq(x) = x * x;\n(sq(3), {sq(x) : x in [1, 2, 3]});\n");
  CHECK(has_flat_function(c.flattened, "SQ_"));
  CHECK(has_flat_function(c.flattened, "LSQ_"));
  CHECK(nesl::flat::verify_program(c.flattened).empty());
  // The lifted twin takes the context segdes after the argument.
  for (const auto& f : c.flattened.functions) {
    if (f.name.rfind("LSQ_", 0) == 0) {
      REQUIRE(f.parameters.size() == 2);
      CHECK(f.leaves[f.parameters[1]] == nesl::flat::Leaf::Segdes);
    }
  }
}

nesl::flat::Statement operation(vcode::Op op, std::optional<vcode::TypeKeyword> type, std::vector<int> inputs,
                                std::vector<int> outputs) {
  nesl::flat::Statement s;
  s.kind = nesl::flat::Statement::Kind::Op;
  s.op = op;
  s.type = type;
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  return s;
}

nesl::flat::Statement constant(vcode::TypeKeyword type, std::int32_t value, int output) {
  nesl::flat::Statement s;
  s.kind = nesl::flat::Statement::Kind::Const;
  s.constant.type = type;
  if (type == vcode::TypeKeyword::Float) {
    s.constant.floats = {static_cast<double>(value)};
  } else {
    s.constant.ints = {value};
  }
  s.outputs = {output};
  return s;
}

// The problems of a one-function program with the given values and body.
std::vector<std::string> problems_of(std::vector<nesl::flat::Leaf> leaves, nesl::flat::Block body,
                                     std::vector<int> results) {
  nesl::flat::Function f;
  f.name = "MAIN_0";
  f.leaves = std::move(leaves);
  f.body = std::move(body);
  f.results = std::move(results);
  nesl::flat::Program program;
  program.functions = {f};
  return nesl::flat::verify_program(program);
}

TEST_CASE("the flat verifier finds a use before definition and arms of another kind", "[codegen]") {
  using nesl::flat::Leaf;
  using vcode::Op;
  using vcode::TypeKeyword;
  CHECK_FALSE(problems_of({Leaf::Int, Leaf::Int}, {operation(Op::Add, TypeKeyword::Int, {0, 0}, {1})}, {1}).empty());

  nesl::flat::Statement choice;
  choice.kind = nesl::flat::Statement::Kind::If;
  choice.inputs = {0};
  choice.then_block = {constant(TypeKeyword::Int, 1, 1)};
  choice.then_results = {1};
  choice.else_block = {constant(TypeKeyword::Float, 0, 2)};
  choice.else_results = {2};
  choice.outputs = {3};
  CHECK_FALSE(problems_of({Leaf::Bool, Leaf::Int, Leaf::Float, Leaf::Int},
                          {constant(TypeKeyword::Bool, 1, 0), choice}, {3})
                  .empty());
}

TEST_CASE("the flat verifier types each operation by ops.def", "[codegen]") {
  using nesl::flat::Leaf;
  using vcode::Op;
  using vcode::TypeKeyword;
  const std::vector<Leaf> ints = {Leaf::Int, Leaf::Int, Leaf::Int};
  const nesl::flat::Block two = {constant(TypeKeyword::Int, 1, 0), constant(TypeKeyword::Int, 2, 1)};
  auto with = [&](nesl::flat::Statement s) {
    nesl::flat::Block body = two;
    body.push_back(std::move(s));
    return body;
  };
  // + INT of two INTs giving an INT is right; each change below is refused.
  CHECK(problems_of(ints, with(operation(Op::Add, TypeKeyword::Int, {0, 1}, {2})), {2}).empty());
  CHECK_FALSE(problems_of(ints, with(operation(Op::Add, TypeKeyword::Float, {0, 1}, {2})), {2}).empty());
  CHECK_FALSE(problems_of(ints, with(operation(Op::Add, std::nullopt, {0, 1}, {2})), {2}).empty());
  CHECK_FALSE(problems_of(ints, with(operation(Op::Add, TypeKeyword::Int, {0}, {2})), {2}).empty());
  CHECK_FALSE(problems_of({Leaf::Int, Leaf::Int, Leaf::Bool},
                          with(operation(Op::Add, TypeKeyword::Int, {0, 1}, {2})), {2})
                  .empty());
  // < gives a BOOL; INDEX takes no type keyword; MAKE_SEGDES gives a segdes.
  CHECK(problems_of({Leaf::Int, Leaf::Int, Leaf::Bool}, with(operation(Op::Less, TypeKeyword::Int, {0, 1}, {2})), {2})
            .empty());
  CHECK_FALSE(problems_of({Leaf::Int, Leaf::Int, Leaf::Segdes, Leaf::Int},
                          with(operation(Op::MakeSegdes, TypeKeyword::Int, {0}, {2})), {1})
                  .empty());
  CHECK(problems_of({Leaf::Int, Leaf::Int, Leaf::Segdes}, with(operation(Op::MakeSegdes, std::nullopt, {0}, {2})), {2})
            .empty());
  // Stack and control opcodes are lower's, not the flat IR's.
  CHECK_FALSE(problems_of(ints, with(operation(Op::Copy, std::nullopt, {}, {})), {1}).empty());
  // A constant's output has the constant's kind.
  CHECK_FALSE(problems_of({Leaf::Float}, {constant(TypeKeyword::Int, 1, 0)}, {0}).empty());
}

TEST_CASE("lower writes VCODE the shared parser and verifier accept, entry function first", "[codegen]") {
  const char* programs[] = {
      "1 + 2;\n",
      "function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);\n(fib(10), {fib(i) : i in [0:8]});\n",
      "{if oddp(x) then [x, x] else [x] : x in [1:6]};\n",
      "xs = [3, 1, 2];\n({x in xs | x > 1}, {sum(r) : r in [[1, 2], [] int, [3]]}, xs[1]);\n",
  };
  for (const char* text : programs) {
    Compiled c = compile(text);
    INFO(text);
    REQUIRE(c.vcode.rfind("FUNC MAIN_0\n", 0) == 0);
    vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
    CHECK(vcode::verify_program(parsed).empty());
  }
}

TEST_CASE("what code generation does not support yet is a compile error, not a crash", "[codegen]") {
  // A function value chosen at run time.
  CHECK_THROWS_AS(compile("function apply(g, x) = g(x);\nfunction inc(x) = x + 1;\n"
                          "{apply(if x > 1 then inc else negate, x) : x in [1, 2]};\n"),
                  nesl::CompileError);
}

TEST_CASE("a function value is known when compiling: one instance per function given", "[codegen]") {
  Compiled c = compile(
      "function apply(g, x) = g(x);\nfunction inc(x) = x + 1;\nfunction dec(x) = x - 1;\n"
      "function sq(x) = x * x;\nfunction both(g, x) = apply(g, x) + {apply(g, y) : y in [x]}[0];\n"
      "(apply(inc, 1), apply(dec, 1), apply(inc, 2), apply(sq, 2), apply(sq, 2.5), both(inc, 3),\n"
      " apply(sqrt, 4.0));\n");
  // With inc, dec and sq at int, sq and the primitive sqrt at float; both passes its inc on.
  CHECK(count_named(c.specialized, "APPLY_") == 5);
  CHECK(count_named(c.specialized, "INC_") == 1);
  CHECK(count_named(c.specialized, "SQ_") == 2);
  CHECK(count_named(c.specialized, "DEC_") == 1);
  CHECK(count_named(c.specialized, "BOTH_") == 1);
  CHECK(nesl::core::verify_program(c.specialized, false).empty());
  // apply takes only the data: the function is gone from its parameter.
  for (const auto& f : c.specialized.functions) {
    if (f.name.rfind("APPLY_", 0) == 0) CHECK(f.parameter->kind == nesl::core::Pattern::Kind::Variable);
  }
  // apply(inc, ...) is lifted inside both's apply-to-each.
  CHECK(has_flat_function(c.flattened, "LAPPLY_"));
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

TEST_CASE("a parameter that is only a function leaves an instance an unused argument", "[codegen]") {
  Compiled c = compile("function one(g) = g(1);\nfunction inc(x) = x + 1;\none(inc);\n");
  REQUIRE(count_named(c.specialized, "ONE_") == 1);
  for (const auto& f : c.specialized.functions) {
    if (f.name.rfind("ONE_", 0) == 0) CHECK(f.parameter->name == "unused_");
  }
  CHECK(nesl::core::verify_program(c.specialized, false).empty());
}

TEST_CASE("specialize unrolls @ at the argument's concrete type", "[codegen]") {
  Compiled c = compile("(@[1, 2], @(t, `a, 2.5));\n");
  CHECK(count_named(c.specialized, "VECTOR_STRING_") == 1);
  CHECK(count_named(c.specialized, "INT_STRING_") == 1);
  CHECK(count_named(c.specialized, "BOOL_STRING_") == 1);
  CHECK(count_named(c.specialized, "CHAR_STRING_") == 1);
  CHECK(count_named(c.specialized, "FLOAT_STRING_") == 1);
  CHECK(nesl::core::verify_program(c.specialized, false).empty());
}

TEST_CASE("top-level bindings draw from a fresh random stream, as in the classic", "[codegen]") {
  auto count = [](const std::string& text, const std::string& word) {
    int n = 0;
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  // One restart before the binding and one before the expressions.
  CHECK(count(compile("x = rand(5);\n(x, rand(5));\n").vcode, "SRAND") == 2);
  CHECK(count(compile("x = 5;\n(x, rand(5));\n").vcode, "SRAND") == 2);
  CHECK(count(compile("x = 5;\n(x, x + 1);\n").vcode, "SRAND") == 0);
}

TEST_CASE("lower emits functions with the same code once", "[codegen]") {
  // same at int and at float have the same code: nothing to do but return the argument.
  Compiled c = compile("function same(x) = x;\n(same(1), same(2.5));\n");
  CHECK(count_named(c.specialized, "SAME_") == 2);
  std::size_t first = c.vcode.find("FUNC SAME_");
  REQUIRE(first != std::string::npos);
  CHECK(c.vcode.find("FUNC SAME_", first + 1) == std::string::npos);
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

TEST_CASE("eql is unrolled at the arguments' concrete type, with no function of its own", "[codegen]") {
  Compiled c = compile("(eql([(1, [t])], [(2, [] bool)]), {eql(x, 2.5) : x in [1.5]});\n");
  CHECK(count_named(c.specialized, "EQL_") == 0);
  CHECK(nesl::core::verify_program(c.specialized, false).empty());
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

TEST_CASE("writes of elements holding sequences take basis.nesl's general versions", "[codegen]") {
  // Flat elements keep the one-scatter primitive; nested ones, and tuples for cond_put, do not.
  CHECK(count_named(compile("[1, 2] <- [(0, 5)];\n").specialized, "GENERAL_WRITE_") == 0);
  CHECK(count_named(compile("[[1], [2]] <- [(0, [5])];\n").specialized, "GENERAL_WRITE_") == 1);
  CHECK(count_named(compile("rep([[1]], [2], 0);\n").specialized, "GENERAL_REP_") == 1);
  CHECK(count_named(compile("cond_put([(1, t)], [0], [t], [(0, f)]);\n").specialized, "GENERAL_COND_PUT_") == 1);
  Compiled c = compile("fpermute_hack([[4]], [0], [t], [[] int]);\n");
  CHECK(count_named(c.specialized, "GENERAL_COND_PUT_") == 1);
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

TEST_CASE("name sorts base values and compares every pair of other values", "[codegen]") {
  CHECK(count_named(compile("name([3, 1, 3]);\n").specialized, "SORTED_NAME_") == 1);
  CHECK(count_named(compile("name(\"aba\");\n").specialized, "CHAR_NAME_") == 1);
  Compiled c = compile("name([[1], [1]]);\n");
  CHECK(count_named(c.specialized, "GENERAL_NAME_") == 1);
  CHECK(count_named(c.specialized, "SORTED_NAME_") == 0);
}

TEST_CASE("flat-opt leaves out constants and LENGTHS whose values nothing reads", "[codegen]") {
  using nesl::flat::Leaf;
  using vcode::Op;
  using vcode::TypeKeyword;
  nesl::flat::Function main;
  main.name = "MAIN_0";
  main.leaves = {Leaf::Int, Leaf::Segdes, Leaf::Int, Leaf::Int, Leaf::Int};
  main.body = {constant(TypeKeyword::Int, 3, 0), operation(Op::MakeSegdes, std::nullopt, {0}, {1}),
               operation(Op::Lengths, std::nullopt, {1}, {2}), constant(TypeKeyword::Int, 5, 3),
               constant(TypeKeyword::Int, 7, 4)};
  main.results = {4};
  nesl::flat::Program program;
  program.functions.push_back(main);
  REQUIRE(nesl::flat::verify_program(program).empty());
  const nesl::flat::Program optimized = nesl::optimize_flat(program);
  REQUIRE(nesl::flat::verify_program(optimized).empty());
  std::string vcode = vcode::print_program(nesl::lower(optimized).program);
  CHECK(vcode.find("LENGTHS") == std::string::npos);
  CHECK(vcode.find("CONST INT 5") == std::string::npos);
  CHECK(vcode.find("MAKE_SEGDES") != std::string::npos);
  CHECK(vcode.find("CONST INT 7") != std::string::npos);
  vcode::Program parsed = vcode::parse_program(vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

TEST_CASE("lower's program is the program its printed text parses to, lines included", "[codegen]") {
  Compiled c = compile("function g(x) = if x > 2 then x / 0 else [x][0];\n{g(x) : x in [1, 2, 3]};\n\"a\nb\";\n");
  const nesl::LoweredProgram lowered = nesl::lower(nesl::optimize_flat(c.flattened));
  const vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(parsed.same_code(lowered.program));
  REQUIRE(parsed.code.size() == lowered.program.code.size());
  for (std::size_t i = 0; i < parsed.code.size(); ++i) CHECK(parsed.code[i].where.line == lowered.program.code[i].where.line);
  CHECK(lowered.lines.size() == static_cast<std::size_t>(std::count(c.vcode.begin(), c.vcode.end(), '\n')));
}

TEST_CASE("compile_until runs the passes in order and stops after the one named", "[codegen]") {
  nesl::CompileOptions options;
  const auto source = std::make_shared<nesl::SourceFile>("test.nesl", "function sq(x) = x * x;\n{sq(x) : x in [1, 2]};\n");
  const nesl::Compilation typed = nesl::compile_until("typecheck", source, basis(), options);
  CHECK(typed.checked.expressions.size() == 1);
  CHECK(typed.core.functions.empty());
  const nesl::Compilation flat = nesl::compile_until("flatten", source, basis(), options);
  CHECK(has_flat_function(flat.flat, "LSQ_"));
  CHECK(flat.vcode.program.code.empty());
  const nesl::Compilation whole = nesl::compile_until("lower", source, basis(), options);
  CHECK(vcode::verify_program(whole.vcode.program).empty());
  CHECK_THROWS_AS(nesl::compile_until("no-such-pass", source, basis(), options), nesl::CompileError);
  std::vector<std::string> names;
  for (const nesl::PassInfo& pass : nesl::compiler_passes()) names.emplace_back(pass.name);
  CHECK(names == std::vector<std::string>{"parse", "typecheck", "eval-globals", "specialize", "normalize", "flatten",
                                          "flat-opt", "lower"});
}

namespace {

std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}

}  // namespace

TEST_CASE("flat-opt computes a repeated operation once, elementwise ones aside", "[codegen]") {
  // sum(v) twice in a lifted body: one +_REDUCE.
  Compiled c = compile("function twice(v) = sum(v) + sum(v);\n{twice(v) : v in [[1, 2], [3]]};\n");
  const std::size_t lifted = c.vcode.find("FUNC LTWICE");
  REQUIRE(lifted != std::string::npos);
  CHECK(occurrences(c.vcode.substr(lifted), "+_REDUCE INT") == 1);
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
  // An elementwise operation stays where it is: the cpu backend fuses it with its one reader.
  CHECK(occurrences(compile("function twice(y) = sqrt(y) + sqrt(y);\n{twice(y) : y in [1.0, 4.0]};\n").vcode,
                    "SQRT") == 2);
  // Each draw is its own: two RANDs stay two.
  CHECK(occurrences(compile("{rand(x) + rand(x) : x in [10, 20]};\n").vcode, "RAND") == 2);
  // An arm does not lend its values to the other arm or to what follows the IF.
  CHECK(occurrences(compile("function g(v) = (if #v > 1 then sum(v) else 0) + sum(v);\ng([1, 2]);\n").vcode,
                    "+_REDUCE INT") == 2);
}

TEST_CASE("a conditional whose arms call one function makes one call, its arguments chosen", "[codegen]") {
  // Lifted, the binary search's instances all recurse through one call per step, so its depth
  // is the search's log n steps; the table passed on unchanged stays one argument.
  Compiled c = compile(
      "function bsearch(tb, k, lo, hi) = if hi - lo <= 1 then lo else let mid = (lo + hi) / 2 in "
      "if tb[mid] <= k then bsearch(tb, k, mid, hi) else bsearch(tb, k, lo, mid);\n"
      "{bsearch([0, 2, 4, 6], k, 0, 4) : k in [5, 0, 7]};\n");
  const std::size_t lifted = c.vcode.find("FUNC LBSEARCH");
  REQUIRE(lifted != std::string::npos);
  const std::size_t end = c.vcode.find("\nFUNC ", lifted + 1);
  const std::string body = c.vcode.substr(lifted, end == std::string::npos ? std::string::npos : end - lifted);
  // The lifted outer if writes its else arm twice (all instances in it, and some): one call and
  // two SELECTs (lo, hi) in each; with a call per inner arm, each copy held four calls.
  CHECK(occurrences(body, "CALL LBSEARCH") == 2);
  CHECK(occurrences(body, "SELECT INT") == 4);
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

TEST_CASE("an expression reading only what an apply-to-each's elements share is computed once", "[codegen]") {
  // transpose(b) once for all rows: no lifted TRANSPOSE, one call.
  Compiled mm = compile("function mm(a, b) = {{sum({x * y : x in r; y in c}) : c in transpose(b)} : r in a};\n"
                        "mm([[1.0, 2.0]], [[3.0], [4.0]]);\n");
  CHECK(occurrences(mm.vcode, "CALL TRANSPOSE") == 1);
  CHECK(occurrences(mm.vcode, "LTRANSPOSE") == 0);
  vcode::Program parsed = vcode::parse_program(mm.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
  // sum(v) once, and v, read by nothing else, is not copied to each element.
  Compiled sum = compile("function g(v, s) = {x + sum(v) : x in s};\ng([1, 2, 3], [10, 20]);\n");
  const std::size_t g = sum.vcode.find("FUNC G_");
  REQUIRE(g != std::string::npos);
  CHECK(occurrences(sum.vcode.substr(g), "BPERMUTE") == 0);
  CHECK(occurrences(sum.vcode.substr(g), "+_REDUCE INT") == 1);
  // A range each element would copy is made per element: a segmented INDEX, no gather.
  Compiled rows = compile("function rows(n) = {{c + r : c in [0:n]} : r in [0:n]};\nrows(3);\n");
  const std::size_t r = rows.vcode.find("FUNC ROWS_");
  REQUIRE(r != std::string::npos);
  CHECK(occurrences(rows.vcode.substr(r), "BPERMUTE") == 0);
  // A draw is not hoisted: RAND over the elements' copies of n, its result not copied.
  Compiled draws = compile("function h(n, s) = {rand(n) : x in s};\nh(10, [1, 2, 3]);\n");
  const std::size_t h = draws.vcode.find("FUNC H_");
  REQUIRE(h != std::string::npos);
  const std::string body = draws.vcode.substr(h);
  const std::size_t rand = body.find("RAND");
  REQUIRE(rand != std::string::npos);
  CHECK(body.find("DIST", rand) == std::string::npos);
}

namespace {

// The text of one function of a program's VCODE, from its FUNC line to the next.
std::string function_text(const std::string& vcode, const std::string& name) {
  const std::size_t start = vcode.find("FUNC " + name);
  if (start == std::string::npos) return {};
  const std::size_t end = vcode.find("\nFUNC ", start + 1);
  return vcode.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("a nested level's context is its generator's descriptor, with no total counted", "[codegen]") {
  // Past 2^31 - 1 logarithms, a 32-bit count of them would wrap: the lifted logsum hands its
  // range's descriptor to the lifted ln as it is, and ln's constant and check go through the
  // context's units (one per segment) instead.
  Compiled c = compile("function logsum(n) = sum({ln(float(i)) : i in [1:n+1]});\n"
                       "function sumlogsum(n) = sum({logsum(j*j) : j in [1:n+1]});\n"
                       "sumlogsum(3);\n");
  const std::string logsum = function_text(c.vcode, "LLOGSUM");
  const std::string ln = function_text(c.vcode, "LLN");
  REQUIRE(!logsum.empty());
  REQUIRE(!ln.empty());
  CHECK(occurrences(logsum, "+_REDUCE INT") == 0);
  CHECK(occurrences(logsum, "CALL LLN") == 1);
  CHECK(occurrences(ln, "DIST FLOAT") == 2);
  CHECK(occurrences(ln, "OR_REDUCE BOOL") == 2);
  CHECK(occurrences(ln, "+_REDUCE INT") == 0);
  vcode::Program parsed = vcode::parse_program(c.vcode, "test.vcode");
  CHECK(vcode::verify_program(parsed).empty());
}

namespace {

// A spread or check made in two steps through a context's units: a DIST of a DIST, an OR_REDUCE of
// an OR_REDUCE.
int two_steps(const nesl::flat::Block& block, std::map<int, vcode::Op>& made_by) {
  int n = 0;
  for (const nesl::flat::Statement& s : block) {
    n += two_steps(s.then_block, made_by) + two_steps(s.else_block, made_by);
    if (s.kind != nesl::flat::Statement::Kind::Op) continue;
    const bool twice = (s.op == vcode::Op::Dist || s.op == vcode::Op::OrReduce) && !s.inputs.empty() &&
                       made_by.count(s.inputs[0]) && made_by.at(s.inputs[0]) == s.op;
    n += twice ? 1 : 0;
    for (int v : s.outputs) made_by[v] = s.op;
  }
  return n;
}

int two_steps(const nesl::flat::Function& f) {
  std::map<int, vcode::Op> made_by;
  return two_steps(f.body, made_by);
}

}  // namespace

TEST_CASE("where a context's flat one is made anyway, constants and checks go over it in one step", "[codegen]") {
  // halves's level makes a sequence of each element, which needs the instances' positions: its
  // 7 and its division's check go over the flat context made for it. twin's body needs them too,
  // so its callers give it the flat context, and it has no segmented instance.
  Compiled c = compile("function halves(v) = {[x / (x + 1), 7] : x in v};\n"
                       "function twin(v) = [#v, 5];\n"
                       "({halves(v) : v in [[1, 2], [3]]}, {{twin(u) : u in w} : w in [[[1], [2, 3]], [[4]]]});\n");
  CHECK(nesl::flat::verify_program(c.flattened).empty());
  bool halves = false;
  bool twin = false;
  for (const nesl::flat::Function& f : c.flattened.functions) {
    INFO(f.name);
    CHECK(two_steps(f) == 0);
    halves = halves || f.name.rfind("LHALVES_", 0) == 0;
    if (f.name.rfind("LTWIN_", 0) == 0) {
      twin = true;
      CHECK(f.name.find("_N") == std::string::npos);
    }
  }
  CHECK(halves);
  CHECK(twin);
  const std::string lifted_halves = function_text(c.vcode, "LHALVES");
  CHECK(occurrences(lifted_halves, "DIST INT") >= 1);
  CHECK(occurrences(lifted_halves, "OR_REDUCE BOOL") == 1);
  CHECK(occurrences(function_text(c.vcode, "LTWIN"), "DIST INT") >= 1);
  // Where the flat context is not made (ln's, past 2^31 - 1 instances), the two steps stay.
  Compiled wide = compile("function logsum(n) = sum({ln(float(i)) : i in [1:n+1]});\n"
                          "{logsum(j) : j in [1:4]};\n");
  int kept = 0;
  for (const nesl::flat::Function& f : wide.flattened.functions) kept += two_steps(f);
  CHECK(kept > 0);
}
