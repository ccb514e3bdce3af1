// The CUDA source made for superoperators (cvl_cuda/superop_cuda.hpp): the documented kernel ABI,
// a mapping for every elementwise op and type, exact constants, the embedded prelude. Compiling
// the text is test/fcode's job (it needs nvcc).
#include <catch2/catch.hpp>

#include <stdexcept>

#include "vcode/parser.hpp"
#include "ops_def_counts.hpp"
#include "cvl_cuda/superop_cuda.hpp"

using Catch::Contains;

namespace {

vcode::SuperOp definition(const std::string& text) {
  auto p = vcode::parse_program(text + "\nFUNC MAIN\nRET\n", "cuda.fcode");
  REQUIRE(p.superops.size() == 1);
  return p.superops[0];
}

}  // namespace

TEST_CASE("a superoperator kernel has the documented name and parameters", "[superop][cuda]") {
  auto op = definition("SUPEROP 0 (FLOAT BOOL SEGDES INT) (SELECT FLOAT $1 (DIST FLOAT $0 $2) (I_TO_F $3))");
  CHECK(vcode::cuda_kernel_name(op) == "nesl_superop_0");
  std::string src = vcode::cuda_source(op);
  CHECK_THAT(src, Contains(
      "extern \"C\" __global__ void nesl_superop_0(const double* __restrict__ in0, "
      "const unsigned char* __restrict__ in1, cvl_sem::SegmentView sd2, "
      "const int* __restrict__ in3, long long first, long long n, "
      "const long long* __restrict__ count, "
      "double* __restrict__ out, unsigned long long* __restrict__ fault)"));
  CHECK_THAT(src, Contains("if (count && *count < n) n = *count;"));
  CHECK_THAT(src, Contains("struct nesl_superop_0_args {"));
  CHECK_THAT(src, Contains("__device__ __forceinline__ double nesl_superop_0_value(const nesl_superop_0_args& a, long long j, unsigned long long* fault)"));
  CHECK_THAT(src, Contains("struct nesl_superop_0_functor {"));
  CHECK_THAT(src, Contains("(long long)a.sd2.segment_of(j)"));
  CHECK_THAT(src, Contains("a.in0[seg2]"));  // the DIST value, per segment
  CHECK_THAT(src, Contains("a.in3[j]"));
}

TEST_CASE("a reduction root's kernel writes the root's input", "[superop][cuda]") {
  auto op = definition("SUPEROP 0 (INT INT SEGDES) (MAX_REDUCE FLOAT (I_TO_F (/ INT $0 $1)) $2)");
  std::string src = vcode::cuda_source(op);
  CHECK_THAT(src, Contains("extern \"C\" __global__ void nesl_superop_0("));
  CHECK_THAT(src, Contains("double* __restrict__ out"));
  CHECK_THAT(src, Contains("cvl_sem::Div::traps(v0, v1) ? nesl_fused::division_fault(fault, j, v1) : "
                           "cvl_sem::Div::apply(v0, v1)"));
  CHECK_THAT(src, Contains("  return v3;\n}"));  // I_TO_F, the reduction's input
}

TEST_CASE("every elementwise op on each of its types has a CUDA expression", "[superop][cuda]") {
  using vcode::TypeKeyword;
  int made = 0;
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    const auto op = static_cast<vcode::Op>(i);
    const auto& info = vcode::info(op);
    if (info.family != vcode::Family::Elementwise) continue;
    for (TypeKeyword t : {TypeKeyword::Int, TypeKeyword::Bool, TypeKeyword::Float}) {
      if (info.syntax == vcode::Syntax::Type ? !(info.type_set & vcode::typeset::bit(t))
                                             : t != vcode::implied_type(op))
        continue;
      std::string kinds, args;
      for (std::size_t a = 0; a < info.args.size(); ++a) {
        const TypeKeyword k = vcode::operand_type(op, t, a);
        if (a) kinds += ' ';
        kinds += vcode::keyword_name(k);
        args += " $";
        args += std::to_string(a);
      }
      std::string text = "SUPEROP 0 (" + kinds + ") (";
      text += info.spelling;
      if (info.syntax == vcode::Syntax::Type) {
        text += ' ';
        text += vcode::keyword_name(t);
      }
      text += args + ")";
      INFO(text);
      auto superop = definition(text);
      std::string src;
      REQUIRE_NOTHROW(src = vcode::cuda_source(superop));
      CHECK_THAT(src, Contains("out[j - first] = nesl_superop_0_value(a, j, fault);"));
      ++made;
    }
  }
  CHECK(made == nesl_test::elementwise_op_type_pairs());
}

TEST_CASE("constants are exact and the prelude is scalar_semantics.hpp", "[superop][cuda]") {
  auto op = definition("SUPEROP 0 (FLOAT INT) (+ FLOAT $0 (I_TO_F (+ INT $1 (CONST INT -2147483648))))");
  CHECK_THAT(vcode::cuda_source(op), Contains("(-2147483647 - 1)"));
  auto f = definition("SUPEROP 0 (FLOAT) (* FLOAT $0 (CONST FLOAT 0.1))");
  CHECK_THAT(vcode::cuda_source(f), Contains("__longlong_as_double(0x3fb999999999999aLL)"));
  const std::string& prelude = vcode::cuda_prelude();
  CHECK_THAT(prelude, Contains("#ifndef CVL_SCALAR_SEMANTICS_HPP"));
  CHECK_THAT(prelude, Contains("namespace cvl_sem"));
  CHECK_THAT(prelude, Contains("namespace nesl_fused"));
  op.id = 3;  // a program's table: numbered by position
  f.id = 4;
  std::string program = vcode::cuda_program_source({op, f});
  CHECK(program.find(prelude) != std::string::npos);
  CHECK_THAT(program, Contains("nesl_superop_3(") && Contains("nesl_superop_4("));
}

TEST_CASE("an ill-formed definition is refused", "[superop][cuda]") {
  vcode::SuperOp bad;
  bad.operands = {vcode::TypeKeyword::Int};
  bad.nodes.push_back({});  // $0 ...
  bad.nodes[0].operand = 3;  // ... out of range
  CHECK_THROWS_AS(vcode::cuda_source(bad), std::invalid_argument);
}
