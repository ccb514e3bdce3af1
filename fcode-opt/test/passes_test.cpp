// Per-pass tests of fcode-opt: small VCODE in, the expected structure of the IR or FCODE out.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fopt/cleanup.hpp"
#include "fopt/fuse.hpp"
#include "fopt/inline_calls.hpp"
#include "fopt/ir_verify.hpp"
#include "fopt/lift.hpp"
#include "fopt/lower.hpp"
#include "fopt/pipeline.hpp"
#include "fopt/stats.hpp"
#include "vcode/parser.hpp"
#include "vcode/printer.hpp"
#include "vcode/superop_stages.hpp"

using namespace fopt;
using vcode::Op;

namespace {

vcode::Program parse(const std::string& text) { return vcode::parse_program(text, "test.vcode"); }

std::size_t count_if_stmt(const Function& f, auto predicate) {
  std::size_t n = 0;
  for_each_stmt(f.body, [&](const Stmt& s) { n += predicate(s) ? 1 : 0; });
  return n;
}

std::size_t count_ops(const Function& f, Op op) {
  return count_if_stmt(f, [&](const Stmt& s) { return s.kind == StmtKind::Op && s.op == op; });
}

std::size_t count_kind(const Function& f, StmtKind kind) {
  return count_if_stmt(f, [&](const Stmt& s) { return s.kind == kind; });
}

std::size_t count_code(const vcode::Program& p, Op op) {
  return static_cast<std::size_t>(std::count_if(
      p.code.begin(), p.code.end(), [&](const vcode::Instruction& i) { return i.op == op; }));
}

PipelineResult run(const std::string& text, std::vector<std::string> passes) {
  PipelineOptions options;
  options.passes = std::move(passes);
  options.verify = true;
  return optimize(parse(text), options);
}

// Three random vectors over one descriptor, multiplied and added (the muladd of the 2012 paper).
const char* const muladd = R"(FUNC MAIN1_1
CONST INT 1000
COPY 1 0
MAKE_SEGDES
CONST INT 100
COPY 1 1
DIST INT
RAND
CONST INT 100
COPY 1 2
DIST INT
RAND
CONST INT 100
COPY 1 3
DIST INT
RAND
CPOP 2 1
* INT
CPOP 1 1
+ INT
CPOP 1 1
POP 1 0
CPOP 1 1
POP 1 0
RET
)";

}  // namespace

TEST_CASE("lift: stack moves become variables; no COPY/POP/CPOP left in the IR") {
  Module m =
      lift(parse("FUNC FN\nCOPY 1 1\nCOPY 1 1\n+ INT\nCPOP 1 2\nPOP 1 0\n* INT\nRET\n"
                 "FUNC MAIN\nCONST INT 2\nCONST INT 3\nCALL FN\nRET\n"));
  REQUIRE(m.functions.size() == 2);
  const Function& f = *m.find("FN");
  CHECK(f.lifted);
  CHECK(f.params.size() == 2);
  CHECK(f.body.yields.size() == 1);
  CHECK(f.body.stmts.size() == 2);  // + INT and * INT, nothing else
  CHECK(count_ops(f, Op::Copy) + count_ops(f, Op::Pop) + count_ops(f, Op::CPop) == 0);
  CHECK(verify_module(m).empty());
}

TEST_CASE("lift: IF/ELSE leaving different values binds them as results of the IF") {
  Module m =
      lift(parse("FUNC MAIN\nCONST INT 7\nCONST BOOL T\nIF\nCONST INT 1\nELSE\nCONST INT 2\nENDIF\n"
                 "+ INT\nRET\n"));
  const Function& f = m.functions[0];
  REQUIRE(count_kind(f, StmtKind::If) == 1);
  const Stmt& s = *std::find_if(f.body.stmts.begin(), f.body.stmts.end(),
                                [](const Stmt& x) { return x.kind == StmtKind::If; });
  CHECK(s.results.size() == 1);
  CHECK(s.branches[0].yields.size() == 1);
  CHECK(s.branches[1].yields.size() == 1);
}

TEST_CASE("lift: the stack effect of a recursive function comes from its base case") {
  // COUNTDOWN n: IF n = 0 THEN 0 ELSE COUNTDOWN (n - 1) + 1
  Module m =
      lift(parse("FUNC MAIN\nCONST INT 5\nCALL CD\nRET\n"
                 "FUNC CD\nCOPY 1 0\nCONST INT 0\n= INT\nIF\nELSE\nCONST INT 1\n- INT\nCALL CD\n"
                 "CONST INT 1\n+ INT\nENDIF\nRET\n"));
  const Function& cd = *m.find("CD");
  CHECK(cd.lifted);
  CHECK(cd.params.size() == 1);
  CHECK(cd.body.yields.size() == 1);
}

TEST_CASE("lift: a function it cannot handle is kept unchanged, with the reason") {
  // The branches leave different stack heights (legal VCODE, beyond the let-form).
  auto result =
      run("FUNC MAIN\nCONST BOOL T\nIF\nCONST INT 1\nELSE\nCONST INT 1\nCONST INT 2\nENDIF\nRET\n",
          default_passes());
  const Function& f = result.module.functions[0];
  CHECK_FALSE(f.lifted);
  CHECK(f.why_unoptimized.find("different stack heights") != std::string::npos);
  CHECK(result.program.code.size() == 8);
}

TEST_CASE("inline: a non-recursive callee disappears; a recursive one stays") {
  const char* text =
      "FUNC MAIN\nCONST INT 3\nCALL SQUARE\nCALL CD\nRET\n"
      "FUNC SQUARE\nCOPY 1 0\n* INT\nRET\n"
      "FUNC CD\nCOPY 1 0\nCONST INT 0\n= INT\nIF\nELSE\nCONST INT 1\n- INT\nCALL CD\nENDIF\nRET\n";
  auto result = run(text, {"inline"});
  CHECK(result.module.find("SQUARE") == nullptr);
  REQUIRE(result.module.find("CD") != nullptr);
  CHECK(count_kind(*result.module.find("MAIN"), StmtKind::Call) == 1);  // the call of CD
  CHECK(count_code(result.program, Op::Call) == 2);                     // MAIN -> CD, CD -> CD
}

TEST_CASE("cleanup: identical pure ops are shared, unused ones dropped, effects kept") {
  const char* text =
      "FUNC MAIN\nCONST INT 100\nCONST INT 4\nMAKE_SEGDES\nCOPY 2 0\nDIST INT\nCPOP 2 1\nDIST INT\n"
      "COPY 1 0\nRAND\nPOP 1 0\nCONST INT 9\nPOP 1 0\n+ INT\nRET\n";
  auto result = run(text, {"cleanup"});
  const Function& f = result.module.functions[0];
  CHECK(count_ops(f, Op::Dist) == 1);   // the second DIST is the first one again
  CHECK(count_ops(f, Op::Rand) == 1);   // unused, but it advances the random stream
  CHECK(count_ops(f, Op::Const) == 2);  // CONST INT 9 was never used
}

TEST_CASE("cleanup: a parameter no body reads is dropped from the function and its calls") {
  auto result = run("FUNC MAIN\nCONST INT 1\nCONST INT 2\nCALL FN\nRET\nFUNC FN\nPOP 1 1\nRET\n",
                    {"cleanup"});
  const Function& f = *result.module.find("FN");
  CHECK(f.params.size() == 1);
  CHECK(count_ops(result.module.functions[0], Op::Const) == 1);
}

TEST_CASE("fuse: muladd becomes one superoperator with no intermediate vector") {
  auto result = run(muladd, default_passes());
  const Function& f = result.module.functions[0];
  // One FUSED computes r1*r2+r3, another the DIST of the constant 100.
  REQUIRE(result.module.superops.size() == 2);
  const auto& arith = result.module.superops[1];
  CHECK(arith.nodes.size() == 5);  // $0 $1 * $2 +
  CHECK(arith.operands.size() == 3);
  CHECK(count_ops(f, Op::Mul) + count_ops(f, Op::Add) == 0);  // 0 intermediate vectors
  CHECK(count_ops(f, Op::Rand) == 3);
  CHECK(count_code(result.program, Op::Fused) == 2);
}

TEST_CASE("fuse: map-reduce fusion puts the producer inside the reduction") {
  const char* text =
      "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\nCONST FLOAT 1.5\nCOPY 1 1\nDIST FLOAT\nCOPY 1 0\n* "
      "FLOAT\n"
      "CPOP 1 1\n+_REDUCE FLOAT\nRET\n";
  auto result = run(text, default_passes());
  REQUIRE(result.module.superops.size() == 1);
  CHECK(result.module.superops[0].reduces());
  CHECK(count_code(result.program, Op::Fused) == 1);
  CHECK(count_code(result.program, Op::Mul) == 0);
  CHECK(count_code(result.program, Op::PlusReduce) == 0);
}

TEST_CASE("fuse: operands of unproven equal length are not fused") {
  // a + b then * c, with a, b, c parameters of unknown lengths: fusing would hide which op
  // reports a length mismatch.
  const char* text =
      "FUNC MAIN\nCONST INT (1 2)\nCONST INT (3 4)\nCONST INT (5 6 7)\nCALL FN\nRET\n"
      "FUNC FN\nCPOP 2 1\n+ INT\n* INT\nRET\n";
  auto result = run(text, {"fuse"});
  CHECK(result.module.superops.empty());
}

TEST_CASE("fuse: no fusion across a timer") {
  const char* text =
      "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\nCONST INT 3\nCOPY 1 1\nDIST INT\nRAND\nCOPY 1 0\n+ "
      "INT\n"
      "START_TIMER\nCOPY 1 0\n* INT\nSTOP_TIMER\nPOP 1 0\nCPOP 1 1\nPOP 1 0\nRET\n";
  auto result = run(text, default_passes());
  const Function& f = result.module.functions[0];
  CHECK(count_ops(f, Op::Add) + count_ops(f, Op::Mul) == 2);
}

TEST_CASE("fuse: an INT division that may divide by zero is not moved into a consumer") {
  const char* text =
      "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\nCONST INT 3\nCOPY 1 1\nDIST INT\nRAND\nCOPY 1 0\nCOPY "
      "1 0\n/ INT\n"
      "COPY 1 0\n+ INT\nCPOP 1 1\nPOP 1 0\nRET\n";
  auto result = run(text, default_passes());
  const Function& f = result.module.functions[0];
  CHECK(count_ops(f, Op::Div) == 1);
}

TEST_CASE("lower: COPY only for values still needed, and the stack layout the VCODE had") {
  auto result = run(muladd, {"inline", "cleanup"});
  const auto before = count_code(parse(muladd));
  const auto after = fopt::count_code(result.program);
  CHECK(after.stack_moves < before.stack_moves);
  CHECK(result.program.functions.size() == 1);
  CHECK(result.program.code.back().op == Op::Ret);
}

TEST_CASE("verify: a variable used before its definition is reported with the function") {
  Module m = lift(parse("FUNC MAIN\nCONST INT 1\nCONST INT 2\n+ INT\nRET\n"));
  std::swap(m.functions[0].body.stmts[0], m.functions[0].body.stmts[2]);
  auto problems = verify_module(m);
  REQUIRE_FALSE(problems.empty());
  CHECK(problems[0].find("function MAIN") != std::string::npos);
}

TEST_CASE("pipeline: an unknown pass name is an error") {
  CHECK_THROWS_WITH(run("FUNC MAIN\nRET\n", {"nonsense"}), Catch::Contains("unknown pass"));
}

TEST_CASE("pipeline: an unknown --dump-after name is an error listing the known ones") {
  PipelineOptions options;
  std::ostringstream dump;
  options.dump = &dump;
  options.dump_after = "fusion";
  std::string known = "lift";
  for (const Pass& pass : registered_passes()) known += ", " + std::string(pass.name);
  CHECK_THROWS_WITH(optimize(parse("FUNC MAIN\nRET\n"), options),
                    "unknown pass \"fusion\" for --dump-after (" + known + ", lower, all)");
  CHECK(dump.str().empty());
  for (const std::string& name : dump_after_names()) {
    options.dump_after = name;
    CHECK_NOTHROW(check_options(options));
  }
}

TEST_CASE("hoist: a scalar computation repeated in two IFs is computed once, before them") {
  const char* text =
      "FUNC MAIN\nCONST INT (1 2 3)\nLENGTH INT\nCOPY 1 0\nCONST INT 0\n> INT\nCOPY 1 0\n"
      "IF\nCOPY 1 1\nCOPY 1 0\n* INT\nELSE\nCONST INT 0\nENDIF\n"
      "CPOP 1 1\nIF\nCOPY 1 1\nCOPY 1 0\n* INT\nELSE\nCONST INT 1\nENDIF\nRET\n";
  auto without = run(text, {"cleanup"});
  CHECK(count_ops(without.module.functions[0], Op::Mul) == 2);
  auto with = run(text, {"hoist", "cleanup"});
  const Function& f = with.module.functions[0];
  CHECK(count_ops(f, Op::Mul) == 1);
  const bool top_level = std::any_of(f.body.stmts.begin(), f.body.stmts.end(), [](const Stmt& s) {
    return s.kind == StmtKind::Op && s.op == Op::Mul;
  });
  CHECK(top_level);
}

TEST_CASE(
    "fuse: a producer the reduction absorbs is computed only in the branch still needing it") {
  // p = (x = 0.0); count = +_REDUCE(B_TO_I p); IF count = 0 THEN 0 ELSE LENGTH(PACK x p)
  const char* text =
      "FUNC MAIN\nCONST FLOAT (1.0 0.0 2.0)\nCOPY 1 0\nLENGTH FLOAT\nMAKE_SEGDES\nCOPY 1 1\nCONST "
      "FLOAT 0.0\n"
      "COPY 1 2\nDIST FLOAT\n= FLOAT\nCOPY 1 0\nB_TO_I\nCOPY 1 2\n+_REDUCE INT\nCONST INT 0\n= "
      "INT\n"
      "IF\nPOP 1 0\nCONST INT 0\nELSE\nCOPY 1 2\nCPOP 1 1\nCOPY 1 2\nPACK FLOAT\nPOP 1 0\nLENGTH "
      "FLOAT\nENDIF\nRET\n";
  auto result = run(text, default_passes());
  const Function& f = result.module.functions[0];
  std::size_t top_fused = 0;
  const Stmt* conditional = nullptr;
  for (const Stmt& s : f.body.stmts) {
    if (s.kind == StmtKind::Fused) {
      ++top_fused;
      CHECK(result.module.superops[s.superop].reduces());
    }
    CHECK_FALSE(
        (s.kind == StmtKind::Op && s.op == Op::Equal && s.type == vcode::TypeKeyword::Float));
    if (s.kind == StmtKind::If) conditional = &s;
  }
  CHECK(top_fused == 1);
  REQUIRE(conditional != nullptr);
  const Block& otherwise = conditional->branches[1];
  REQUIRE_FALSE(otherwise.stmts.empty());
  CHECK(otherwise.stmts[0].kind == StmtKind::Fused);  // p, sunk to where PACK needs it
}

TEST_CASE("pipeline: FCODE reads back in and optimizes again to the same superoperators") {
  auto first = run(muladd, default_passes());
  const std::string text = vcode::print_program(first.program);
  PipelineOptions options;
  options.verify = true;
  auto second = optimize(vcode::parse_program(text, "first.fcode"), options);
  CHECK(second.program.superops == first.program.superops);
  CHECK(count_code(second.program, Op::Fused) == count_code(first.program, Op::Fused));
  CHECK(vcode::print_program(second.program) == text);
}

namespace {

const Stmt& first_if(const Function& f) {
  return *std::find_if(f.body.stmts.begin(), f.body.stmts.end(),
                       [](const Stmt& s) { return s.kind == StmtKind::If; });
}

bool has_top_level(const Function& f, Op op) {
  return std::any_of(f.body.stmts.begin(), f.body.stmts.end(),
                     [&](const Stmt& s) { return s.kind == StmtKind::Op && s.op == op; });
}

}  // namespace

TEST_CASE("types: an IF result has a type only when every branch yields that type") {
  Module m = lift(parse(
      "FUNC MAIN\nCONST BOOL T\nIF\nCONST INT 1\nCONST INT 2\nELSE\nCONST INT 3\nCONST BOOL F\n"
      "ENDIF\nRET\n"));
  const Stmt& s = first_if(m.functions[0]);
  REQUIRE(s.results.size() == 2);
  CHECK(m.var_types[s.results[0]] == VarType::Int);
  CHECK(m.var_types[s.results[1]] == VarType::Unknown);  // INT or BOOL, by the path taken
}

TEST_CASE("types: a parameter has a type only when every call passes that type") {
  Module m = lift(parse(
      "FUNC MAIN\nCONST INT 1\nCALL ID\nCONST BOOL T\nCALL ID\nCONST INT 2\nCALL SAME\n"
      "CONST INT 3\nCALL SAME\nRET\nFUNC ID\nCOPY 1 0\nPOP 1 1\nRET\n"
      "FUNC SAME\nCOPY 1 0\nPOP 1 1\nRET\n"));
  CHECK(m.var_types[m.find("ID")->params[0]] == VarType::Unknown);
  CHECK(m.var_types[m.find("SAME")->params[0]] == VarType::Int);
}

TEST_CASE("types: a recursive function's parameter and results are typed through the recursion") {
  // COUNTDOWN n: IF n = 0 THEN n ELSE COUNTDOWN (n - 1) + 1
  Module m = lift(parse(
      "FUNC MAIN\nCONST INT 5\nCALL CD\nRET\n"
      "FUNC CD\nCOPY 1 0\nCONST INT 0\n= INT\nIF\nELSE\nCONST INT 1\n- INT\nCALL CD\n"
      "CONST INT 1\n+ INT\nENDIF\nRET\n"));
  const Function& cd = *m.find("CD");
  CHECK(m.var_types[cd.params[0]] == VarType::Int);
  CHECK(m.var_types[cd.body.yields[0]] == VarType::Int);
}

TEST_CASE("fuse: an operand whose type depends on the path stays out of superoperators") {
  // x is INT after the THEN branch, BOOL after the ELSE branch (the one taken): B_TO_I x must
  // not become a node over an operand declared INT (the FCODE would not type-check), nor BOOL.
  const char* text =
      "FUNC MAIN\nCONST BOOL F\nIF\nCONST INT (1 2 3)\nELSE\nCONST BOOL (T F T)\nENDIF\n"
      "COPY 1 0\nB_TO_I\nCONST INT 10\nCOPY 1 2\nLENGTH BOOL\nMAKE_SEGDES\nDIST INT\n+ INT\n"
      "POP 1 1\nRET\n";
  PipelineResult result;
  REQUIRE_NOTHROW(result = run(text, default_passes()));
  CHECK(count_code(result.program, Op::BoolToInt) == 1);
  CHECK(count_code(result.program, Op::Fused) == 1);  // + INT with the DIST inside
}

TEST_CASE("fuse: a parameter passed INT by one call and BOOL by another is no operand") {
  // CONVERT x flag: IF flag THEN B_TO_I x + 100 ELSE x + 1000; recursive, so not inlined.
  const char* text =
      "FUNC MAIN\nCONST BOOL (F T)\nCONST BOOL T\nCONST INT 1\nCALL CONVERT\n"
      "CONST INT (4 5)\nCONST BOOL F\nCONST INT 1\nCALL CONVERT\nRET\n"
      "FUNC CONVERT\nCOPY 1 0\nCONST INT 0\n> INT\nIF\nCONST INT 1\n- INT\nCALL CONVERT\nELSE\n"
      "POP 1 0\nIF\nB_TO_I\nCONST INT 100\nCOPY 1 1\nLENGTH INT\nMAKE_SEGDES\nDIST INT\n+ INT\n"
      "ELSE\nCONST INT 1000\nCOPY 1 1\nLENGTH INT\nMAKE_SEGDES\nDIST INT\n+ INT\nENDIF\nENDIF\n"
      "RET\n";
  PipelineResult result;
  REQUIRE_NOTHROW(result = run(text, default_passes()));
  REQUIRE(result.module.find("CONVERT") != nullptr);
  CHECK(count_ops(*result.module.find("CONVERT"), Op::BoolToInt) == 1);
}

TEST_CASE("hoist: an op whose operand has another type than it requires stays in its branches") {
  // B_TO_I of an INT in two branches never taken: hoisted, it would be a type error.
  const char* text =
      "FUNC MAIN\nCONST INT 5\nCONST BOOL F\nIF\nCOPY 1 0\nB_TO_I\nELSE\nCOPY 1 0\nENDIF\n"
      "CONST BOOL F\nIF\nCOPY 1 1\nB_TO_I\nELSE\nCOPY 1 1\nENDIF\n+ INT\n+ INT\nRET\n";
  auto result = run(text, {"hoist", "cleanup"});
  const Function& f = result.module.functions[0];
  CHECK(count_ops(f, Op::BoolToInt) == 2);
  CHECK_FALSE(has_top_level(f, Op::BoolToInt));
}

TEST_CASE("fuse: superoperators that differ only in the sign of a zero constant stay apart") {
  const char* text =
      "FUNC MAIN\nCONST FLOAT -0.0\nCONST SEGDES 3\nDIST FLOAT\nCONST FLOAT 0.0\nCONST SEGDES 3\n"
      "DIST FLOAT\nRET\n";
  auto result = run(text, default_passes());
  REQUIRE(result.module.superops.size() == 2);
  std::vector<bool> negative;
  for (const auto& op : result.module.superops)
    for (const auto& node : op.nodes)
      if (node.kind == vcode::SuperOpNode::Kind::Constant)
        negative.push_back(std::signbit(node.float_value));
  CHECK(negative == std::vector<bool>{true, false});
}

TEST_CASE("cleanup: the constants 0.0 and -0.0 are not shared, and INT constants fold wrapping") {
  auto floats = run("FUNC MAIN\nCONST FLOAT -0.0\nCONST FLOAT 0.0\nCONST FLOAT 0.0\nRET\n",
                    {"cleanup"});
  CHECK(count_ops(floats.module.functions[0], Op::Const) == 2);
  auto ints = run("FUNC MAIN\nCONST INT 2147483647\nCONST INT 1\n+ INT\nRET\n", {"cleanup"});
  const Function& f = ints.module.functions[0];
  REQUIRE(f.body.stmts.size() == 1);
  CHECK(f.body.stmts[0].op == Op::Const);
  CHECK(f.body.stmts[0].constant.ints == std::vector<std::int32_t>{INT32_MIN});
}

TEST_CASE("cleanup: an unused PACK is dropped where its lengths are known to agree, kept where not") {
  // In MAIN the values, flags and descriptor all have 10 elements: the PACK cannot fail.
  const char* known =
      "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\nCONST INT 3\nCOPY 1 1\nDIST INT\nCONST BOOL T\n"
      "COPY 1 2\nDIST BOOL\nCOPY 2 0\nCOPY 1 4\nPACK INT\nPOP 2 0\nPOP 3 0\nRET\n";
  CHECK(count_ops(run(known, {"cleanup"}).module.functions[0], Op::Pack) == 0);
  // FN's operands have lengths 2 and 3: the PACK must still run and report the mismatch.
  const char* unknown =
      "FUNC MAIN\nCONST INT (1 2)\nCONST BOOL (T F T)\nCONST INT 2\nMAKE_SEGDES\nCALL FN\nRET\n"
      "FUNC FN\nPACK INT\nPOP 2 0\nRET\n";
  auto result = run(unknown, {"cleanup"});
  CHECK(count_ops(*result.module.find("FN"), Op::Pack) == 1);
}

namespace {
// t = (a * 1.5 + 2.5) * b + 0.5 over 10 elements (a = I_TO_F of random INTs, b = a or another
// random vector), then +_REDUCE t and MAX_REDUCE t: t is 17 nodes, too big to copy by size alone.
std::string reduced_twice(bool b_is_a) {
  std::string text =
      "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\nCONST INT 100\nCOPY 1 1\nDIST INT\nRAND\nI_TO_F\n";
  text += b_is_a ? "COPY 1 0\n"  // s a a
                 : "CONST INT 100\nCOPY 1 2\nDIST INT\nRAND\nI_TO_F\nCPOP 1 1\n";  // s b a
  text +=
      "CONST FLOAT 1.5\nCOPY 1 3\nDIST FLOAT\n* FLOAT\nCONST FLOAT 2.5\nCOPY 1 3\nDIST FLOAT\n"
      "+ FLOAT\n* FLOAT\nCONST FLOAT 0.5\nCOPY 1 2\nDIST FLOAT\n+ FLOAT\n"
      "COPY 1 0\nCOPY 1 2\n+_REDUCE FLOAT\nCPOP 1 1\nCOPY 1 2\nMAX_REDUCE FLOAT\nRET\n";
  return text;
}
}  // namespace

// Superoperators of `result` that `predicate` holds for.
std::size_t count_superops(const PipelineResult& result, auto predicate) {
  return static_cast<std::size_t>(std::count_if(result.module.superops.begin(),
                                                result.module.superops.end(), predicate));
}

bool has_node(const vcode::SuperOp& op, Op what) {
  return std::any_of(op.nodes.begin(), op.nodes.end(),
                     [&](const vcode::SuperOpNode& n) { return n.op == what; });
}

TEST_CASE("fuse: a multi-use value reading one vector is recomputed in its consumers, not stored") {
  auto result = run(reduced_twice(true), default_passes());
  CHECK(count_superops(result, [](const auto& op) { return op.reduces() && has_node(op, Op::Mul); }) ==
        2);
  CHECK(count_superops(result, [](const auto& op) { return !op.reduces() && has_node(op, Op::Mul); }) ==
        0);
  CHECK(count_code(result.program, Op::PlusReduce) + count_code(result.program, Op::MaxReduce) ==
        0);
}

TEST_CASE("fuse: a multi-use value reading two vectors is stored once and read back") {
  auto result = run(reduced_twice(false), default_passes());
  CHECK(count_superops(result, [](const auto& op) { return !op.reduces() && has_node(op, Op::Mul); }) ==
        1);
  CHECK(count_code(result.program, Op::PlusReduce) == 1);
  CHECK(count_code(result.program, Op::MaxReduce) == 1);
}

namespace {
// Random vectors a, b, c; d = a - b, small, read by two consumers: d * c and d / c
// (`consumers_read_c`), or d * a and d / b.
std::string difference_read_twice(bool consumers_read_c) {
  std::string text = "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\n";
  for (int depth = 1; depth <= 3; ++depth)  // s a b c
    text += "CONST INT 100\nCOPY 1 " + std::to_string(depth) + "\nDIST INT\nRAND\nI_TO_F\n";
  if (consumers_read_c)
    return text + "CPOP 2 1\n- FLOAT\nCOPY 2 0\n* FLOAT\nCPOP 2 1\n/ FLOAT\nRET\n";  // s d*c c/d
  // s c a b -> s c a b d: then d * a and d / b.
  return text + "CPOP 2 1\nCOPY 2 0\n- FLOAT\nCOPY 1 0\nCOPY 1 3\n* FLOAT\nCPOP 1 1\nCPOP 1 2\n"
                "/ FLOAT\nRET\n";
}
}  // namespace

TEST_CASE("fuse: a small value is recomputed in a consumer only if that reads one vector more") {
  auto sub = [](const auto& op) { return has_node(op, Op::Sub); };
  // Recomputed inside d * c, d would cost the reads of a and b instead of one of d: stored.
  auto stored = run(difference_read_twice(true), default_passes());
  CHECK(count_superops(stored, sub) == 1);
  CHECK(count_superops(stored, [&](const auto& op) { return sub(op) && has_node(op, Op::Mul); }) == 0);
  // d * a reads a anyway, d / b reads b: recomputing adds one read to each, as reading d would.
  auto recomputed = run(difference_read_twice(false), default_passes());
  CHECK(count_superops(recomputed, [&](const auto& op) { return sub(op) && has_node(op, Op::Mul); }) == 1);
  CHECK(count_superops(recomputed, [&](const auto& op) { return sub(op) && has_node(op, Op::Div); }) == 1);
  CHECK(count_superops(recomputed, [&](const auto& op) { return sub(op) && op.nodes.size() <= 4; }) == 0);
}

TEST_CASE("fuse: a value the same at every element is recomputed in each consumer, however big") {
  // u = 1 / sqrt(2 * 3.0) + 4.0 over one segment (DISTs of scalars); r + u and r * u.
  const char* text =
      "FUNC MAIN\nCONST INT 10\nMAKE_SEGDES\nCONST INT 100\nCOPY 1 1\nDIST INT\nRAND\nI_TO_F\n"
      "CONST FLOAT 1.0\nCOPY 1 2\nDIST FLOAT\nCONST FLOAT 2.0\nCOPY 1 3\nDIST FLOAT\n"
      "CONST FLOAT 3.0\nCOPY 1 4\nDIST FLOAT\n* FLOAT\nSQRT\n/ FLOAT\nCONST FLOAT 4.0\nCOPY 1 3\n"
      "DIST FLOAT\n+ FLOAT\n"                                       // s r u
      "COPY 2 0\n+ FLOAT\nCPOP 2 1\n* FLOAT\nRET\n";  // s r+u r*u
  auto result = run(text, default_passes());
  CHECK(count_superops(result, [](const auto& op) { return has_node(op, Op::Sqrt); }) == 2);
  CHECK(count_code(result.program, Op::Sqrt) == 0);
}

TEST_CASE("fuse: an INDEX whose start is also computed inside another superoperator stays INDEX") {
  // r random, s = r + 1, read by s * s (which takes it in) and as INDEX's starts (which cannot,
  // r the strides): s is stored, and a superoperator of the INDEX alone would be the instruction
  // run more slowly.
  const char* text =
      "FUNC MAIN\nCONST INT 3\nMAKE_SEGDES\nCONST INT 100\nCOPY 1 1\nDIST INT\nRAND\n"
      "COPY 1 0\nCONST INT 1\nCOPY 1 3\nDIST INT\n+ INT\n"           // sd r s
      "COPY 1 0\nCOPY 1 0\n* INT\nCPOP 1 1\nCPOP 1 2\n"               // sd s*s s r
      "CONST INT (2 3 4)\nMAKE_SEGDES\nINDEX\nRET\n";
  auto result = run(text, default_passes());
  CHECK(count_superops(result, [](const auto& op) { return has_node(op, Op::Mul); }) == 1);
  CHECK(count_superops(result, [](const auto& op) { return has_node(op, Op::Index); }) == 0);
  CHECK(count_code(result.program, Op::Index) == 1);
}

TEST_CASE("cleanup: an unused gather with indices an earlier gather checked is dropped") {
  // g1 = a[i] (returned), then (a + a)[i2] unused: dropped when i2 is i (g1 checked those
  // indices, and a + a is as long as a), kept when i2 is other indices (it may fail on one).
  auto program = [](const char* second_indices) {
    return std::string(
               "FUNC MAIN\nCONST FLOAT (1.0 2.0 3.0)\nCONST INT (2 0 1)\nCONST INT 3\nMAKE_SEGDES\n"
               "COPY 3 0\nCOPY 1 0\nBPERMUTE FLOAT\nCOPY 1 3\nCOPY 1 0\n+ FLOAT\n") +
           second_indices + "COPY 1 3\nCOPY 1 0\nBPERMUTE FLOAT\nPOP 1 0\nRET\n";
  };
  const auto same = run(program("COPY 1 3\n"), {"cleanup"});  // i
  CHECK(count_ops(same.module.functions[0], Op::BPermute) == 1);
  const auto other = run(program("CONST INT (0 5 1)\n"), {"cleanup"});
  CHECK(count_ops(other.module.functions[0], Op::BPermute) == 2);
}

namespace {
// MAIN calls FN(a, a, 1) with a 4-element vector. FN(x, y, n) is y * (y + x) when n = 0, and
// otherwise FN(z, y, n - 1): z is x + x (as long as x), or a 3-element vector when `mismatch`.
std::string recursive_caller(bool mismatch) {
  std::string text =
      "FUNC MAIN\nCONST INT 4\nMAKE_SEGDES\nCONST FLOAT 1.5\nCOPY 1 1\nDIST FLOAT\nCOPY 1 0\n"
      "CONST INT 1\nCALL FN\nRET\n"
      "FUNC FN\nCOPY 1 0\nCONST INT 0\n= INT\nIF\nPOP 1 0\nCOPY 1 0\nCPOP 1 2\n+ FLOAT\n* FLOAT\n"
      "ELSE\nCPOP 1 2\n";
  text += mismatch ? "POP 1 0\nCONST FLOAT 2.5\nCONST INT 3\nMAKE_SEGDES\nDIST FLOAT\n"  // y n z
                   : "COPY 1 0\n+ FLOAT\n";                                               // y n x+x
  text += "CPOP 1 2\nCPOP 1 2\nCONST INT 1\n- INT\nCALL FN\nENDIF\nRET\n";
  return text;
}
}  // namespace

TEST_CASE("entry facts: what every call of a function passes is known in its body") {
  // The lengths of x and y agree at MAIN's call, and at the recursive one because they agree at
  // the call that made it: y * (y + x) is one superoperator.
  auto same = run(recursive_caller(false), {"fuse"});
  const Function& fn = *same.module.find("FN");
  CHECK(count_ops(fn, Op::Mul) == 0);
  CHECK(count_kind(fn, StmtKind::Fused) == 1);
  // One call passes vectors of 3 and 4 elements: nothing is assumed, x + y stays a checked op.
  auto mismatch = run(recursive_caller(true), {"fuse"});
  CHECK(count_ops(*mismatch.module.find("FN"), Op::Mul) == 1);
  CHECK(count_ops(*mismatch.module.find("FN"), Op::Add) == 1);
}

namespace {
// k = 1 + 0.2316419 * |x| (or * x), then the count of k = 0 and the count of 1 / k < 0: NESL's
// guards of black-scholes' CNDF. x is FN's parameter (any values, NaN included), on a descriptor
// of its own length.
std::string guarded_division(bool absolute) {
  return "FUNC MAIN\nCONST FLOAT (-10.0 0.0 3.5)\nCALL FN\nRET\n"
         "FUNC FN\nCOPY 1 0\nLENGTH FLOAT\nMAKE_SEGDES\nCPOP 1 1\n"  // sd x
         "CONST FLOAT 0.0\nCOPY 1 2\nDIST FLOAT\n"  // sd x z
         + std::string(absolute ? "COPY 1 1\nCOPY 1 1\n> FLOAT\nCOPY 1 2\nCOPY 1 2\nCOPY 1 4\n"
                                  "- FLOAT\nSELECT FLOAT\n"  // sd x z |x|
                                : "COPY 1 1\n") +
         "CONST FLOAT 0.2316419\nCOPY 1 4\nDIST FLOAT\n* FLOAT\n"
         "CONST FLOAT 1.0\nCOPY 1 4\nDIST FLOAT\n+ FLOAT\n"  // sd x z k
         "COPY 1 0\nCOPY 1 2\n= FLOAT\nB_TO_I\nCOPY 1 4\n+_REDUCE INT\n"  // sd x z k zeros
         "CONST FLOAT 1.0\nCOPY 1 5\nDIST FLOAT\nCOPY 1 2\n/ FLOAT\nCOPY 1 3\n< FLOAT\nB_TO_I\n"
         "COPY 1 5\n+_REDUCE INT\n"  // sd x z k zeros negatives
         "RET\n";
}

// In FN, the count of 2 = 0 over x's own descriptor, reduced over that descriptor or over the
// parameter sd, whose total nothing relates to x's length (MAIN passes 3 elements, a total of 2).
std::string count_in_function(bool over_parameter) {
  return std::string("FUNC MAIN\nCONST INT 2\nMAKE_SEGDES\nCONST FLOAT (-10.0 0.0 3.5)\n"
                     "CALL FN\nRET\n"
                     "FUNC FN\nCOPY 1 0\nLENGTH FLOAT\nMAKE_SEGDES\n"  // sd x own
                     "CONST FLOAT 2.0\nCOPY 1 1\nDIST FLOAT\nCONST FLOAT 0.0\nCOPY 1 2\n"
                     "DIST FLOAT\n= FLOAT\nB_TO_I\n") +
         (over_parameter ? "COPY 1 3\n" : "COPY 1 1\n") + "+_REDUCE INT\nRET\n";
}
}  // namespace

TEST_CASE("ranges: a count of zero divisors that cannot be zero becomes zeros") {
  const std::string text = guarded_division(true);
  CHECK(count_ops(*run(text, {"cleanup"}).module.find("FN"), Op::PlusReduce) == 2);
  auto result = run(text, {"ranges", "cleanup"});
  const Function& f = *result.module.find("FN");
  // 1 + 0.23 |x| is at least 1 (or NaN), and 1 / k lies in [0, 1] (1 / inf = 0, not below it):
  // neither count can be other than 0
  CHECK(count_ops(f, Op::PlusReduce) == 0);
  CHECK(count_ops(f, Op::Equal) == 0);
  CHECK(count_ops(f, Op::Less) == 0);
  CHECK(count_ops(f, Op::Lengths) == 1);  // shared by both counts
  CHECK(count_code(result.program, Op::PlusReduce) == 0);
}

TEST_CASE("ranges: a count that may not be zero stays") {
  // Without |x|: k = 1 + 0.23 x may be 0, and 1 / k below 0.
  auto result = run(guarded_division(false), {"ranges", "cleanup"});
  const Function& f = *result.module.find("FN");
  CHECK(count_ops(f, Op::PlusReduce) == 2);
  CHECK(count_ops(f, Op::Lengths) == 0);
  // 5 < (1 7 2) holds at one element, though 5 is above the smallest
  auto overlapping = run(
      "FUNC MAIN\nCONST INT 3\nMAKE_SEGDES\nCONST FLOAT 5.0\nCOPY 1 1\nDIST FLOAT\n"
      "CONST FLOAT (1.0 7.0 2.0)\n< FLOAT\nB_TO_I\nCOPY 1 1\n+_REDUCE INT\nRET\n",
      {"ranges", "cleanup"});
  CHECK(count_ops(overlapping.module.functions[0], Op::PlusReduce) == 1);
}

TEST_CASE("ranges: a count whose reduction could fail on its lengths stays") {
  CHECK(count_ops(*run(count_in_function(false), {"ranges", "cleanup"}).module.find("FN"),
                  Op::PlusReduce) == 0);
  // The comparison is false everywhere, but this +_REDUCE must still run and report the mismatch.
  CHECK(count_ops(*run(count_in_function(true), {"ranges", "cleanup"}).module.find("FN"),
                  Op::PlusReduce) == 1);
}

TEST_CASE("ranges: a count of bounds that are not positive, where every bound is, becomes zeros") {
  // NOT (c > 0) over 3 elements: none for c = 100, all for c = 0
  auto count = [](const char* bound) {
    auto result = run(std::string("FUNC MAIN\nCONST INT 3\nMAKE_SEGDES\nCONST FLOAT ") + bound +
                          "\nCOPY 1 1\nDIST FLOAT\nCONST FLOAT 0.0\nCOPY 1 2\nDIST FLOAT\n"
                          "> FLOAT\nNOT BOOL\nB_TO_I\nCOPY 1 1\n+_REDUCE INT\nRET\n",
                      {"ranges", "cleanup"});
    return count_ops(result.module.functions[0], Op::PlusReduce);
  };
  CHECK(count("100.0") == 0);
  CHECK(count("0.0") == 1);
  // sqrt(y) + 1 is at least 1, or NaN where y < 0 or y is NaN: NOT (c > 0) holds there
  auto nan = run("FUNC MAIN\nCONST FLOAT (-1.0 4.0)\nCALL FN\nRET\n"
                 "FUNC FN\nCOPY 1 0\nLENGTH FLOAT\nMAKE_SEGDES\nCPOP 1 1\n"  // sd y
                 "SQRT\nCONST FLOAT 1.0\nCOPY 1 2\nDIST FLOAT\n+ FLOAT\n"  // sd c
                 "CONST FLOAT 0.0\nCOPY 1 2\nDIST FLOAT\n> FLOAT\nNOT BOOL\nB_TO_I\n"
                 "COPY 1 1\n+_REDUCE INT\nRET\n",
                 {"ranges", "cleanup"});
  CHECK(count_ops(*nan.module.find("FN"), Op::PlusReduce) == 1);
}

namespace {

// NESL's packed update of the flagged elements, as the compiler writes `if x < 0 then 1 - x
// else x` over a vector: PUT flags x < 0, packs the positions (INDEX 0 1) where it holds, checks
// them against LENGTHS (an error and EXIT where one is out of range), gathers the values there,
// changes them (1 - g) and puts them back over x.
struct PackedUpdate {
  bool floats = true;                 // else INT
  std::string change = "-";           // the op of 1 `change` g
  int index_start = 0;
  bool checked_against_lengths = true;  // else against the constant 1
  bool positions_returned = false;      // the positions are read after the update
};

std::string packed_update(const PackedUpdate& u) {
  const std::string t = u.floats ? "FLOAT" : "INT";
  const std::string values = u.floats ? "(-1.5 2.0 -0.0 3.0)" : "(-1 2 0 3)";
  const std::string zero = u.floats ? "0.0" : "0", one = u.floats ? "1.0" : "1";
  return "FUNC MAIN\nCONST " + t + " " + values + "\nCALL PUT\nRET\n"
         "FUNC PUT\nCOPY 1 0\nLENGTH " + t + "\nMAKE_SEGDES\n"  // x sd
         "CONST " + t + " " + zero + "\nCOPY 1 1\nDIST " + t + "\nCOPY 1 2\nCPOP 1 1\n< " + t +
         "\n"  // x sd flags
         "CONST INT " + std::to_string(u.index_start) +
         "\nCONST INT 1\nCOPY 1 3\nINDEX\nCOPY 1 1\nCOPY 1 3\nPACK INT\n"  // x sd flags p psd
         "COPY 1 1\nCONST INT 0\nCOPY 1 2\nDIST INT\n< INT\nCOPY 1 2\n" +
         (u.checked_against_lengths ? "COPY 1 5\nLENGTHS\n" : "CONST INT 1\n") +
         "COPY 1 3\nDIST INT\n>= INT\nOR BOOL\nCOPY 1 1\nOR_REDUCE BOOL\n"
         "IF\nCONST CHAR \"bad index\"\nWRITE CHAR\nPOP 2 0\nEXIT\nELSE\nENDIF\n"
         "COPY 1 4\nCOPY 1 2\nCOPY 1 5\nCOPY 1 3\nBPERMUTE " + t + "\n"  // ... g
         "CONST " + t + " " + one + "\nCOPY 1 2\nDIST " + t + "\nCPOP 1 1\n" + u.change + " " +
         t + "\n"  // x sd flags p psd changed
         "COPY 1 2\nCOPY 1 6\nCOPY 1 3\nCOPY 1 7\nDPERMUTE " + t + "\n" +  // x sd flags p psd r
         (u.positions_returned ? "POP 1 1\nPOP 3 2\n" : "POP 5 1\n") + "RET\n";
}

// How many DPERMUTEs and SELECTs PUT has after selects and cleanup.
std::pair<std::size_t, std::size_t> permutes_and_selects(const PackedUpdate& u) {
  auto result = run(packed_update(u), {"selects", "cleanup"});
  const Function& f = *result.module.find("PUT");
  return {count_ops(f, Op::DPermute), count_ops(f, Op::Select)};
}

}  // namespace

TEST_CASE("selects: a packed update of the flagged elements becomes one SELECT") {
  auto result = run(packed_update({}), {"selects", "cleanup"});
  const Function& f = *result.module.find("PUT");
  for (Op gone : {Op::Index, Op::Pack, Op::OrReduce, Op::BPermute, Op::DPermute})
    CHECK(count_ops(f, gone) == 0);
  CHECK(count_kind(f, StmtKind::If) == 0);  // the position check, which cannot fire
  CHECK(count_ops(f, Op::Select) == 1);
  CHECK(count_ops(f, Op::Sub) == 1);  // 1 - x, now over the whole vector
  // INT too, where the change cannot trap
  CHECK(permutes_and_selects({.floats = false}) == std::pair<std::size_t, std::size_t>{0, 1});
}

TEST_CASE("selects: a packed update stays where SELECT would do something else") {
  const std::pair<std::size_t, std::size_t> kept{1, 0};
  // 1 / x over the whole vector would divide by the unflagged 0
  CHECK(permutes_and_selects({.floats = false, .change = "/"}) == kept);
  // positions from 1: the check fires at the last flagged element
  CHECK(permutes_and_selects({.index_start = 1}) == kept);
  // checked against 1, not the vector's length: the check may fire
  CHECK(permutes_and_selects({.checked_against_lengths = false}) == kept);
  // the positions are read afterwards
  CHECK(permutes_and_selects({.positions_returned = true}) == kept);
}

namespace {

// x = (3 1 3 2 3 5) in segments of 4 and 2, flags `x OP (DIST (3 5) sd)`, and a PACK by them.
struct EqualPack {
  std::string type = "INT";
  std::string op = "=";
  bool swapped = false;          // (DIST p sd) = x
  bool packs_other = false;      // packs another vector by the flags
  bool dist_over_other = false;  // p DISTributed over another descriptor of the same total
  bool one_segment = false;      // sd = MAKE_SEGDES (LENGTH x), p = 3: lengths known to agree
};

std::string equal_pack(const EqualPack& e) {
  const bool f = e.type == "FLOAT";
  std::string text = "FUNC MAIN\nCONST " + e.type +
                     (f ? " (3.0 1.0 3.0 2.0 3.0 5.0)\n" : " (3 1 3 2 3 5)\n") +
                     (e.one_segment ? "COPY 1 0\nLENGTH " + e.type + "\n" : "CONST INT (4 2)\n") +
                     "MAKE_SEGDES\n";  // x sd
  const std::string p = e.one_segment ? (f ? " 3.0" : " 3") : (f ? " (3.0 5.0)" : " (3 5)");
  text += e.dist_over_other ? "CONST INT (3 3)\nMAKE_SEGDES\nCONST " + e.type + p + "\nCPOP 1 1\n"
                            : "CONST " + e.type + p + "\nCOPY 1 1\n";
  text += "DIST " + e.type + "\nCOPY 1 2\n" + (e.swapped ? "" : "CPOP 1 1\n") + e.op + " " +
          e.type + "\n";  // x sd flags
  text += e.packs_other ? "CONST " + e.type + (f ? " (9.0 8.0 7.0 6.0 5.0 4.0)" : " (9 8 7 6 5 4)") +
                              "\nCPOP 1 1\nCPOP 1 2\n"
                        : "CPOP 1 1\n";
  return text + "PACK " + e.type + "\nRET\n";
}

std::size_t packs_left(const EqualPack& e) {
  return count_ops(run(equal_pack(e), {"equal-packs", "cleanup"}).module.functions[0], Op::Pack);
}

}  // namespace

TEST_CASE("equal-packs: a PACK of the INT elements equal to their segment's value becomes that value over their count") {
  auto result = run(equal_pack({}), {"equal-packs", "cleanup"});
  const Function& f = result.module.functions[0];
  CHECK(count_ops(f, Op::Pack) == 0);
  CHECK(count_ops(f, Op::PlusReduce) == 1);
  CHECK(count_ops(f, Op::MakeSegdes) == 2);
  CHECK(count_ops(f, Op::Dist) == 2);  // p over sd for the comparison, p over the counts
  CHECK(packs_left({.swapped = true}) == 0);
  // with fuse, the comparison goes into the count: no vector of flags is written
  auto fused = run(equal_pack({.one_segment = true}), {"equal-packs", "cleanup", "fuse", "cleanup"});
  CHECK(count_code(fused.program, Op::Pack) == 0);
  CHECK(count_code(fused.program, Op::Equal) == 0);
  CHECK(std::any_of(fused.module.superops.begin(), fused.module.superops.end(),
                    [](const vcode::SuperOp& op) { return op.reduces(); }));
}

TEST_CASE("equal-packs: a PACK stays where its elements are not all its segment's value") {
  // -0.0 = 0.0: a FLOAT pack of equals may hold either
  CHECK(packs_left({.type = "FLOAT"}) == 1);
  CHECK(packs_left({.op = "<"}) == 1);
  CHECK(packs_left({.packs_other = true}) == 1);
  // the DIST's segments are not the PACK's
  CHECK(packs_left({.dist_over_other = true}) == 1);
  CHECK(packs_left({}) == 0);
}

namespace {

// x (4 elements) over a descriptor of ones `u` made from x's own length, and what reads it.
std::string over_ones(const std::string& reader) {
  return "FUNC MAIN\nCONST INT (4 5 6 7)\nCALL FN\nRET\n"
         "FUNC FN\nCOPY 1 0\nLENGTH INT\nMAKE_SEGDES\nCONST INT 1\nCPOP 1 1\nDIST INT\n"  // x ones
         "COPY 1 0\nMAKE_SEGDES\n" +  // x ones u
         reader + "RET\n";
}

// v = INDEX starts 1 sd (so its length is sd's total), then PERMUTE v (INDEX start stride sd) sd.
std::string permuted(const std::string& start, const std::string& stride) {
  return "FUNC MAIN\nCONST INT (10 20 30)\nCONST INT (3 0 2)\nMAKE_SEGDES\nCALL FN\nRET\n"
         "FUNC FN\nCOPY 1 0\nLENGTHS\nLENGTH INT\nMAKE_SEGDES\nCONST INT 1\nCOPY 1 1\nDIST INT\n"
         "CPOP 1 3\nCOPY 1 1\nCOPY 1 4\nINDEX\n"  // sd c ones v
         "CONST INT " + start + "\nCOPY 1 3\nDIST INT\nCONST INT " + stride +
         "\nCOPY 1 4\nDIST INT\n"  // sd c ones v starts strides
         "COPY 1 5\nINDEX\nCOPY 1 4\nPERMUTE INT\nPOP 3 1\nRET\n";
}

std::size_t ops_left(const std::string& text, Op op) {
  return count_ops(*run(text, {"identities", "cleanup"}).module.find("FN"), op);
}

}  // namespace

TEST_CASE("identities: DIST, INDEX, * and PERMUTE that return an operand are read as it") {
  // DIST x over u (made again from its LENGTHS): x; the ones and u go with it
  const std::string dist = "POP 1 1\nCOPY 1 0\nLENGTHS\nMAKE_SEGDES\nPOP 1 1\nDIST INT\n";
  CHECK(ops_left(over_ones(dist), Op::Dist) == 0);
  CHECK(ops_left(over_ones(dist), Op::MakeSegdes) == 1);  // x's own descriptor only
  CHECK(ops_left(over_ones("INDEX\n"), Op::Index) == 0);  // INDEX x ones u
  CHECK(ops_left(over_ones("POP 1 0\n* INT\n"), Op::Mul) == 0);               // x * ones
  CHECK(ops_left(permuted("0", "1"), Op::Permute) == 0);  // each element to its own place
}

TEST_CASE("identities: what returns something else, or may fail, stays") {
  // over a descriptor of twos, each element twice
  CHECK(ops_left("FUNC MAIN\nCONST INT (4 5)\nCALL FN\nRET\nFUNC FN\nCOPY 1 0\nLENGTH INT\n"
                 "MAKE_SEGDES\nCONST INT 2\nCPOP 1 1\nDIST INT\nMAKE_SEGDES\nDIST INT\nRET\n",
                 Op::Dist) == 2);
  CHECK(ops_left(permuted("2", "-1"), Op::Permute) == 1);  // reversed in each segment
  CHECK(ops_left(permuted("0", "2"), Op::Permute) == 1);
  // x of 3 over ones of 4: DIST fails at run time, and must still
  CHECK(ops_left("FUNC MAIN\nCONST INT (4 5 6)\nCONST INT (1 2 3 4)\nCALL FN\nRET\nFUNC FN\n"
                 "LENGTH INT\nMAKE_SEGDES\nCONST INT 1\nCPOP 1 1\nDIST INT\nMAKE_SEGDES\nDIST INT\n"
                 "RET\n",
                 Op::Dist) == 2);
  // an INT vector of ones read as FLOAT: the DIST's type error stays
  CHECK(ops_left(over_ones("POP 1 1\nDIST FLOAT\n"), Op::Dist) == 2);
}

namespace {

// NESL's max_index of four FLOATs over one segment, as the classic compiler writes it (the
// extreme, spread and compared, the positions where equal, their minimum); `after_max` is code
// put right after the MAX_REDUCE, `keep_max` keeps its result for the end.
std::string max_index(const std::string& after_max, bool keep_max = false) {
  const int d = keep_max ? 1 : 0;  // the kept copy of m lies between sd and the rest
  auto copy = [&](int depth) { return "COPY 1 " + std::to_string(depth + d) + "\n"; };
  const std::string copy3 = copy(3);
  return "FUNC MAIN\nCONST FLOAT (3.0 7.0 1.0 7.0)\nCOPY 1 0\nLENGTH FLOAT\nMAKE_SEGDES\n"
         "COPY 2 0\nMAX_REDUCE FLOAT\n" + after_max + (keep_max ? "COPY 1 0\n" : "") +
         copy(1) + "DIST FLOAT\n" + copy(2) + "= FLOAT\n"  // x sd [m] flags
         "CONST INT 0\nCONST INT 1\n" + copy3 + "INDEX\n"
         "CONST INT 9\n" + copy3 + "DIST INT\nSELECT INT\n" +
         copy(1) + "MIN_REDUCE INT\nRET\n";
}

bool has_nested(const PipelineResult& r) {
  return std::any_of(r.program.superops.begin(), r.program.superops.end(),
                     [](const vcode::SuperOp& op) { return vcode::has_nested_reduction(op); });
}

}  // namespace

TEST_CASE("nest-reductions: max_index's MAX_REDUCE goes into the fold of its positions") {
  const std::vector<std::string> passes = {"fuse", "nest-reductions", "cleanup"};
  auto nested = run(max_index(""), passes);
  CHECK(count_code(nested.program, Op::MaxReduce) == 0);
  CHECK(count_code(nested.program, Op::Fused) == 1);
  CHECK(has_nested(nested));
  // without the pass: the reduction, then the fold that reads it
  auto plain = run(max_index(""), {"fuse", "cleanup"});
  CHECK(count_code(plain.program, Op::MaxReduce) == 1);
  CHECK_FALSE(has_nested(plain));
}

TEST_CASE("nest-reductions: a reduction read elsewhere too, or timed apart, stays") {
  const std::vector<std::string> passes = {"fuse", "nest-reductions", "cleanup"};
  for (const auto& [code, keep] : {std::pair<std::string, bool>{"", true},
                                   std::pair<std::string, bool>{"START_TIMER\n", false}}) {
    INFO(code << keep);
    auto r = run(max_index(code, keep), passes);
    CHECK(count_code(r.program, Op::MaxReduce) == 1);
    CHECK_FALSE(has_nested(r));
  }
}
