// Elementwise ops on every element type: spec/CVL.md §2 and §3.1, VCODE.md §6.4.
#include <bit>
#include <limits>

#include "support.hpp"

namespace cvl_test {
namespace {

constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Ints int2(cvl::Backend& b, Op op, const Ints& x, const Ints& y) {
  return to_ints(b, ew(b, op, Type::Int, ints(b, x), ints(b, y)));
}
Floats float2(cvl::Backend& b, Op op, const Floats& x, const Floats& y) {
  return to_floats(b, ew(b, op, Type::Float, floats(b, x), floats(b, y)));
}
Ints float_to_int(cvl::Backend& b, Op op, const Floats& x) {
  return to_ints(b, ew(b, op, Type::Float, floats(b, x)));
}

void check_same_floats(const Floats& actual, const Floats& expected,
                       FloatMatch match = FloatMatch::Exact) {
  HostVector a, e;
  a.type = e.type = Type::Float;
  a.f = actual;
  e.f = expected;
  check_equal(a, e, match);
}

}  // namespace

TEST_CASE("INT + - * wrap modulo 2^32", "[elementwise]") {
  CVL_BACKEND(b);
  CHECK(int2(b, Op::Add, {kMax, kMin, 5, 0}, {1, -1, -7, 0}) == Ints{kMin, kMax, -2, 0});
  CHECK(int2(b, Op::Sub, {kMin, kMax, 3}, {1, -1, 10}) == Ints{kMax, kMin, -7});
  CHECK(int2(b, Op::Mul, {65536, kMin, 3, kMax}, {65536, -1, -4, kMax}) == Ints{0, kMin, -12, 1});
}

TEST_CASE("INT / truncates toward zero and % takes the dividend's sign", "[elementwise]") {
  CVL_BACKEND(b);
  CHECK(int2(b, Op::Div, {-7, 7, -7, 7, kMin, kMax, kMin, kMin, kMax, 0, -1},
             {2, -2, -2, 2, 1, -1, 2, kMax, kMin, 5, kMin}) ==
        Ints{-3, -3, 3, 3, kMin, -kMax, -1073741824, -1, 0, 0, 0});
  CHECK(int2(b, Op::Mod, {-7, 7, -7, 7, kMin, kMin, kMax, kMin, 0},
             {2, -2, -2, 2, kMax, 1, kMin, 3, 9}) == Ints{-1, 1, -1, 1, -1, 0, kMax, -2, 0});

  // Against the host's own division on many operand pairs, extremes included.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int32_t> any(kMin, kMax), small(-300, 300), pick(0, 3);
  auto draw = [&] {
    switch (pick(rng)) {
      case 0:
        return any(rng);
      case 1:
        return small(rng);
      case 2:
        return std::uniform_int_distribution<std::int32_t>(kMax - 3, kMax)(rng);
      default:
        return std::uniform_int_distribution<std::int32_t>(kMin, kMin + 3)(rng);
    }
  };
  Ints x, y, quotient, remainder;
  while (x.size() < 100000) {
    std::int32_t a = draw(), d = draw();
    if (d == 0 || (a == kMin && d == -1)) continue;
    x.push_back(a);
    y.push_back(d);
    quotient.push_back(a / d);
    remainder.push_back(a % d);
  }
  check_equal(int2(b, Op::Div, x, y), quotient);
  check_equal(int2(b, Op::Mod, x, y), remainder);
}

TEST_CASE("FLOAT + - * / are IEEE double operations", "[elementwise]") {
  CVL_BACKEND(b);
  check_same_floats(float2(b, Op::Add, {0.1, 1e308, -0.0}, {0.2, 1e308, 0.0}),
                    {0.1 + 0.2, kInf, 0.0});
  check_same_floats(float2(b, Op::Sub, {0.3, -0.0, kInf}, {0.1, 0.0, kInf}),
                    {0.3 - 0.1, -0.0, kNan});
  check_same_floats(float2(b, Op::Mul, {1.1, -2.0, 0.0}, {1.1, 0.0, kInf}),
                    {1.1 * 1.1, -0.0, kNan});
  check_same_floats(float2(b, Op::Div, {1.0, -1.0, 0.0, 1.0}, {0.0, 0.0, 0.0, 3.0}),
                    {kInf, -kInf, kNan, 1.0 / 3.0});
}

TEST_CASE("comparisons are signed for INT and IEEE for FLOAT", "[elementwise]") {
  CVL_BACKEND(b);
  const Ints x{kMin, -1, 0, 5, 7}, y{kMax, 1, 0, 5, -7};
  CHECK(to_bools(b, ew(b, Op::Less, Type::Int, ints(b, x), ints(b, y))) == Bools{1, 1, 0, 0, 0});
  CHECK(to_bools(b, ew(b, Op::LessEq, Type::Int, ints(b, x), ints(b, y))) == Bools{1, 1, 1, 1, 0});
  CHECK(to_bools(b, ew(b, Op::Greater, Type::Int, ints(b, x), ints(b, y))) == Bools{0, 0, 0, 0, 1});
  CHECK(to_bools(b, ew(b, Op::GreaterEq, Type::Int, ints(b, x), ints(b, y))) ==
        Bools{0, 0, 1, 1, 1});
  CHECK(to_bools(b, ew(b, Op::Equal, Type::Int, ints(b, x), ints(b, y))) == Bools{0, 0, 1, 1, 0});
  CHECK(to_bools(b, ew(b, Op::NotEqual, Type::Int, ints(b, x), ints(b, y))) ==
        Bools{1, 1, 0, 0, 1});

  // NaN compares false except with !=; -0.0 equals 0.0.
  const Floats f{kNan, 1.0, -0.0, -kInf, 2.5}, g{1.0, kNan, 0.0, kInf, 2.5};
  CHECK(to_bools(b, ew(b, Op::Less, Type::Float, floats(b, f), floats(b, g))) ==
        Bools{0, 0, 0, 1, 0});
  CHECK(to_bools(b, ew(b, Op::LessEq, Type::Float, floats(b, f), floats(b, g))) ==
        Bools{0, 0, 1, 1, 1});
  CHECK(to_bools(b, ew(b, Op::Greater, Type::Float, floats(b, f), floats(b, g))) ==
        Bools{0, 0, 0, 0, 0});
  CHECK(to_bools(b, ew(b, Op::GreaterEq, Type::Float, floats(b, f), floats(b, g))) ==
        Bools{0, 0, 1, 0, 1});
  CHECK(to_bools(b, ew(b, Op::Equal, Type::Float, floats(b, f), floats(b, g))) ==
        Bools{0, 0, 1, 0, 1});
  CHECK(to_bools(b, ew(b, Op::NotEqual, Type::Float, floats(b, f), floats(b, g))) ==
        Bools{1, 1, 0, 1, 0});
}

TEST_CASE("shift counts are taken modulo 32, RSHIFT is arithmetic", "[elementwise]") {
  CVL_BACKEND(b);
  CHECK(int2(b, Op::LShift, {1, 1, 1, -1, 5, 3}, {33, 31, 32, 4, -1, 0}) ==
        Ints{2, kMin, 1, -16, kMin, 3});
  CHECK(int2(b, Op::RShift, {1, -8, kMin, kMin, 16, -1}, {33, 1, -1, 31, 36, 7}) ==
        Ints{0, -4, -1, -1, 1, -1});
}

TEST_CASE("NOT AND OR XOR: bitwise on INT, logical on BOOL", "[elementwise]") {
  CVL_BACKEND(b);
  CHECK(to_ints(b, ew(b, Op::Not, Type::Int, ints(b, {0, -1, 5, kMin}))) == Ints{-1, 0, -6, kMax});
  CHECK(int2(b, Op::And, {12, -1, kMin}, {10, 7, -1}) == Ints{8, 7, kMin});
  CHECK(int2(b, Op::Or, {12, 0, kMin}, {10, 0, 1}) == Ints{14, 0, kMin + 1});
  CHECK(int2(b, Op::Xor, {12, -1, 5}, {10, -1, 0}) == Ints{6, 0, 5});

  const Bools p{0, 0, 1, 1}, q{0, 1, 0, 1};
  CHECK(to_bools(b, ew(b, Op::Not, Type::Bool, bools(b, p))) == Bools{1, 1, 0, 0});
  CHECK(to_bools(b, ew(b, Op::And, Type::Bool, bools(b, p), bools(b, q))) == Bools{0, 0, 0, 1});
  CHECK(to_bools(b, ew(b, Op::Or, Type::Bool, bools(b, p), bools(b, q))) == Bools{0, 1, 1, 1});
  CHECK(to_bools(b, ew(b, Op::Xor, Type::Bool, bools(b, p), bools(b, q))) == Bools{0, 1, 1, 0});
}

TEST_CASE("SELECT picks per flag on every type", "[elementwise]") {
  CVL_BACKEND(b);
  // VCODE.md §6.4's example
  CHECK(to_ints(b, ew(b, Op::Select, Type::Int, bools(b, {1, 0, 1}), ints(b, {1, 2, 3}),
                      ints(b, {10, 20, 30}))) == Ints{1, 20, 3});
  check_same_floats(to_floats(b, ew(b, Op::Select, Type::Float, bools(b, {0, 1, 0}),
                                    floats(b, {1.5, -0.0, kNan}), floats(b, {2.5, 3.5, 4.5}))),
                    {2.5, -0.0, 4.5});
  CHECK(to_bools(b, ew(b, Op::Select, Type::Bool, bools(b, {1, 1, 0, 0}), bools(b, {1, 0, 1, 0}),
                       bools(b, {0, 1, 0, 1}))) == Bools{1, 0, 0, 1});
}

TEST_CASE("FLOOR CEIL TRUNC ROUND follow x86-64, NaN and overflow give -2147483648",
          "[elementwise]") {
  CVL_BACKEND(b);
  const Floats x{
      2.5,  -2.5, -1.7,  0.49999999999999994, -0.5,        2147483647.5, -2147483648.5, 1e10, -1e10,
      kNan, kInf, -kInf, -2147483648.9,       2147483646.6};
  CHECK(float_to_int(b, Op::Floor, x) ==
        Ints{2, -3, -2, 0, -1, kMax, kMin, kMin, kMin, kMin, kMin, kMin, kMin, 2147483646});
  CHECK(float_to_int(b, Op::Ceil, x) ==
        Ints{3, -2, -1, 1, 0, kMin, kMin, kMin, kMin, kMin, kMin, kMin, kMin, kMax});
  CHECK(float_to_int(b, Op::Trunc, x) ==
        Ints{2, -2, -1, 0, 0, kMax, kMin, kMin, kMin, kMin, kMin, kMin, kMin, 2147483646});
  // ROUND = (int)(x + 0.5): not round-half-away (-2.5 -> -2, -1.7 -> -1), and the addition itself
  // rounds (0.49999999999999994 + 0.5 == 1.0).
  CHECK(float_to_int(b, Op::Round, x) ==
        Ints{3, -2, -1, 1, 0, kMin, kMin, kMin, kMin, kMin, kMin, kMin, kMin, 2147483647});
  CHECK(float_to_int(b, Op::Round, {-1.5, 1.4999, -0.2}) == Ints{-1, 1, 0});
}

// Bit for bit, but on a GPU's math library (within 2 ulps there: spec/CVL.md §8.2).
TEST_CASE("transcendental functions give the C library's results", "[elementwise]") {
  CVL_BACKEND(b);
  const Floats x{0.5, 1.0, 2.0, -0.75, 10.0, 1e-300, 0.0, -0.0, 100.0, -3.0, kInf, kNan};
  struct Case {
    Op op;
    double (*fn)(double);
  };
  const Case cases[] = {
      {Op::Log, [](double v) { return std::log(v); }},
      {Op::Sqrt, [](double v) { return std::sqrt(v); }},
      {Op::Exp, [](double v) { return std::exp(v); }},
      {Op::Sin, [](double v) { return std::sin(v); }},
      {Op::Cos, [](double v) { return std::cos(v); }},
      {Op::Tan, [](double v) { return std::tan(v); }},
      {Op::Asin, [](double v) { return std::asin(v); }},
      {Op::Acos, [](double v) { return std::acos(v); }},
      {Op::Atan, [](double v) { return std::atan(v); }},
      {Op::Sinh, [](double v) { return std::sinh(v); }},
      {Op::Cosh, [](double v) { return std::cosh(v); }},
      {Op::Tanh, [](double v) { return std::tanh(v); }},
  };
  for (const Case& c : cases) {
    INFO(vcode::spelling(c.op));
    Floats expected;
    for (double v : x) expected.push_back(c.fn(v));
    check_same_floats(to_floats(b, ew(b, c.op, Type::Float, floats(b, x))), expected,
                      libm_match(b_factory, c.op));
  }
}

TEST_CASE("I_TO_F, I_TO_B, B_TO_I, and BOOL upload normalisation", "[elementwise]") {
  CVL_BACKEND(b);
  check_same_floats(to_floats(b, ew(b, Op::IntToFloat, Type::Int, ints(b, {kMin, -1, 0, kMax}))),
                    {-2147483648.0, -1.0, 0.0, 2147483647.0});
  CHECK(to_bools(b, ew(b, Op::IntToBool, Type::Int, ints(b, {kMin, -1, 0, 2}))) ==
        Bools{1, 1, 0, 1});
  CHECK(to_ints(b, ew(b, Op::BoolToInt, Type::Bool, bools(b, {0, 1}))) == Ints{0, 1});
  // Any non-zero byte uploads as T (stored 1).
  const Bools raw{0, 1, 2, 255, 128};
  CHECK(to_bools(b, bools(b, raw)) == Bools{0, 1, 1, 1, 1});
  CHECK(to_ints(b, ew(b, Op::BoolToInt, Type::Bool, bools(b, raw))) == Ints{0, 1, 1, 1, 1});
}

TEST_CASE("elementwise ops on empty vectors give empty vectors", "[elementwise][empty]") {
  CVL_BACKEND(b);
  for (std::size_t id = 0; id < vcode::op_count; ++id) {
    const auto op = static_cast<Op>(id);
    const vcode::OpInfo& info = vcode::info(op);
    if (info.family != vcode::Family::Elementwise) continue;
    // the instruction's type: the implied one, else the first the op accepts
    Type type = info.implied == vcode::Implied::Float                            ? Type::Float
                : info.implied == vcode::Implied::Bool                           ? Type::Bool
                : info.implied == vcode::Implied::Int                            ? Type::Int
                : (info.type_set & vcode::typeset::bit(vcode::TypeKeyword::Int)) ? Type::Int
                                                                                 : Type::Bool;
    std::vector<cvl::Vector> operands;
    for (char a : info.args)
      operands.push_back(b.upload(a == 'I'   ? Type::Int
                                  : a == 'F' ? Type::Float
                                  : a == 'B' ? Type::Bool
                                             : type,
                                  nullptr, 0));
    INFO(info.spelling);
    cvl::Vector r = b.elementwise(op, type, operands);
    CHECK(r.length == 0);
  }
}

}  // namespace cvl_test
