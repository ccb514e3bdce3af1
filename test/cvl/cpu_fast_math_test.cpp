// cvl-cpu's fast mode (BackendOptions::fast_math): the transcendental functions come from SLEEF,
// within 2 ulps of the C library's on every input class, and really are other functions (so the
// conformance entry "--math fast" tests what it says); the exact mode stays the C library's.
#include <cmath>
#include <cstring>
#include <limits>

#include "cvl_cpu/cvl_cpu.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

std::unique_ptr<cvl::Backend> cpu(bool fast) {
  cvl::BackendOptions options{1};
  options.fast_math = fast;
  return cvl::make_cpu_backend(options);
}

bool built_with_sleef() { return std::strncmp(cvl::cpu_fast_math_description(), "SLEEF", 5) == 0; }

}  // namespace

TEST_CASE("fast math mode: vector transcendentals within 2 ulps of the C library's",
          "[cpu][fast-math]") {
  std::mt19937_64 rng(5);
  // Inputs in each function's domain, and every length class: whole vectors, tails, one element.
  struct Case {
    Op op;
    double (*fn)(double);
    double lo, hi;
  };
  const Case cases[] = {
      {Op::Log, [](double v) { return std::log(v); }, 1e-300, 1e300},
      {Op::Exp, [](double v) { return std::exp(v); }, -700, 700},
      {Op::Sin, [](double v) { return std::sin(v); }, -1e4, 1e4},
      {Op::Cos, [](double v) { return std::cos(v); }, -1e4, 1e4},
      {Op::Tan, [](double v) { return std::tan(v); }, -1e4, 1e4},
      {Op::Asin, [](double v) { return std::asin(v); }, -1, 1},
      {Op::Acos, [](double v) { return std::acos(v); }, -1, 1},
      {Op::Atan, [](double v) { return std::atan(v); }, -1e6, 1e6},
      {Op::Sinh, [](double v) { return std::sinh(v); }, -700, 700},
      {Op::Cosh, [](double v) { return std::cosh(v); }, -700, 700},
      {Op::Tanh, [](double v) { return std::tanh(v); }, -20, 20},
  };
  auto exact = cpu(false), fast = cpu(true);
  std::size_t differing = 0;
  for (const Case& c : cases) {
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{20011}}) {
      INFO(vcode::spelling(c.op) << ", " << n << " elements");
      Floats x = random_floats(n, c.lo, c.hi, rng);
      Floats expected;
      for (double v : x) expected.push_back(c.fn(v));
      const Floats from_fast = to_floats(*fast, ew(*fast, c.op, Type::Float, floats(*fast, x)));
      const Floats from_exact = to_floats(*exact, ew(*exact, c.op, Type::Float, floats(*exact, x)));
      for (std::size_t i = 0; i < n; ++i) {
        INFO("x = " << x[i] << ": C library " << expected[i] << ", fast " << from_fast[i]);
        REQUIRE(within_ulps(from_fast[i], expected[i], 2));
        REQUIRE(same_float(from_exact[i], expected[i]));
        differing += !same_float(from_fast[i], expected[i]);
      }
    }
  }
  // SLEEF's functions are not glibc's: over 200,000 random inputs some results differ in the
  // last bit. Without SLEEF the fast mode is the C library itself.
  if (built_with_sleef())
    CHECK(differing > 0);
  else
    CHECK(differing == 0);
}

TEST_CASE("fast math mode: special values as the C library gives them", "[cpu][fast-math]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto fast = cpu(true);
  const Floats x{0.0, -0.0, inf, -inf, nan, 1e-310, -1.5, 2.0};
  for (Op op : {Op::Log, Op::Exp, Op::Sin, Op::Cos, Op::Tan, Op::Asin, Op::Acos, Op::Atan,
                Op::Sinh, Op::Cosh, Op::Tanh}) {
    INFO(vcode::spelling(op));
    const Floats got = to_floats(*fast, ew(*fast, op, Type::Float, floats(*fast, x)));
    const Floats want = to_floats(reference_backend(),
                                  ew(reference_backend(), op, Type::Float,
                                     floats(reference_backend(), x)));
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("x = " << x[i] << ": C library " << want[i] << ", fast " << got[i]);
      CHECK(within_ulps(got[i], want[i], 2));
    }
  }
}

// SLEEF reduces the arguments of sin, cos and tan by the whole vector, by a slower method as soon
// as one lane is 1e14 or more: lane by lane, cvl-cpu gives each element the result it has among
// any neighbours (so the thread count and FUSED's blocks never change a digit).
TEST_CASE("fast math mode: sin, cos and tan of an element do not depend on its neighbours",
          "[cpu][fast-math]") {
  if (!built_with_sleef()) return;  // the C library's functions: one element at a time
  auto fast = cpu(true);
  std::mt19937_64 rng(11);
  const Floats ordinary = random_floats(4096, -1e9, 1e9, rng);
  for (Op op : {Op::Sin, Op::Cos, Op::Tan}) {
    INFO(vcode::spelling(op));
    const Floats alone = to_floats(*fast, ew(*fast, op, Type::Float, floats(*fast, ordinary)));
    // Every fifth element made huge or not finite: the others must not move by a bit, and each
    // huge one must be what it is on its own.
    Floats mixed = ordinary;
    const double huge[] = {1e15, -3e20, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 5e13};
    for (std::size_t i = 0; i < mixed.size(); i += 5) mixed[i] = huge[(i / 5) % 5];
    const Floats together = to_floats(*fast, ew(*fast, op, Type::Float, floats(*fast, mixed)));
    for (std::size_t i = 0; i < mixed.size(); ++i) {
      INFO("element " << i << ", x = " << mixed[i]);
      if (i % 5 != 0) {
        REQUIRE(same_float(together[i], alone[i]));
      } else {
        const Floats single = to_floats(*fast, ew(*fast, op, Type::Float, floats(*fast, {mixed[i]})));
        REQUIRE(same_float(together[i], single[0]));
      }
    }
  }
}

}  // namespace cvl_test
