// FUSED: a superoperator gives what the same expression gives op by op on the sequential
// reference (exact for INT and BOOL, within a relative 1e-9 for FLOAT), on every segment layout,
// small and large enough for the threaded paths; INT division traps are the usual errors; a
// prepared superoperator is planned once for any number of calls.
#include "fused_support.hpp"

namespace cvl_test {

TEST_CASE("FUSED agrees with the unfused expression on the reference", "[fused][slow]") {
  CVL_BACKEND(b);
  cvl::Backend& ref = reference_backend();
  std::mt19937_64 rng(7);
  for (const std::string& text : fused_definitions()) {
    const vcode::SuperOp op = superop(text);
    for (std::size_t n : {std::size_t{37}, std::size_t{150001}}) {
      for (Layout layout : kAllLayouts) {
        INFO(text << "\n  n " << n << ", layout " << layout_name(layout));
        FusedCase c = random_case(op, make_lengths(layout, n, rng), rng);
        auto mine = upload_operands(b, op, c);
        auto theirs = upload_operands(ref, op, c);
        cvl::Vector expected = cvl::run_unfused(ref, op, theirs, c.domain);
        cvl::Vector actual = b.fused(op, mine, c.domain);
        check_equal(download(b, actual), download(ref, expected), /*approximate=*/true);
      }
    }
  }
}

TEST_CASE("FUSED leaves shared operands unchanged", "[fused][value-semantics]") {
  CVL_BACKEND(b);
  const vcode::SuperOp op = superop("SUPEROP 0 (INT INT) (+ INT $0 (* INT $1 (CONST INT 2)))");
  cvl::Vector x = ints(b, Ints(5000, 3)), y = ints(b, Ints(5000, 4));
  std::vector<cvl::FusedOperand> operands(2);
  operands[0].vector = x;
  operands[1].vector = y;
  cvl::Vector r = b.fused(op, operands, 5000);
  CHECK(to_ints(b, r) == Ints(5000, 11));
  CHECK(to_ints(b, x) == Ints(5000, 3));
  CHECK(to_ints(b, y) == Ints(5000, 4));
}

TEST_CASE("INT division traps inside FUSED are the errors of / and %", "[fused][errors]") {
  CVL_BACKEND(b);
  const vcode::SuperOp op = superop("SUPEROP 0 (INT INT SEGDES) (+_REDUCE INT (% $0 $1) $2)");
  for (std::size_t n : {std::size_t{10}, std::size_t{200000}}) {
    INFO("n " << n);
    Ints a(n, 7), d(n, 3);
    d[n - 2] = 0;
    a[n / 2] = INT32_MIN;
    d[n / 2] = -1;
    // Fresh operands for each call: the backend may take them (backend.hpp).
    auto operands = [&] {
      std::vector<cvl::FusedOperand> o(3);
      o[0].vector = ints(b, a);
      o[1].vector = ints(b, d);
      o[2].segdes = segdes(b, {static_cast<std::int32_t>(n)});
      return o;
    };
    // The lowest trapping position decides the message.
    auto first = operands();
    CHECK_THROWS_WITH(b.fused(op, first, n), Catch::Contains("integer overflow in division"));
    a[n / 2] = 7;
    auto second = operands();
    CHECK_THROWS_WITH(b.fused(op, second, n), Catch::Contains("division by zero"));
  }
}

TEST_CASE("an INT division by a constant 0 traps at each call, not once per plan",
          "[fused][errors]") {
  CVL_BACKEND(b);
  const vcode::SuperOp op =
      superop("SUPEROP 0 (INT SEGDES) (+ INT $0 (/ INT (DIST INT (CONST INT 5) $1) (DIST INT (CONST INT 0) $1)))");
  for (std::size_t n : {std::size_t{0}, std::size_t{10}, std::size_t{200000}}) {
    INFO("n " << n);
    std::vector<cvl::FusedOperand> operands(2);
    operands[0].vector = ints(b, Ints(n, 1));
    operands[1].segdes = segdes(b, {static_cast<std::int32_t>(n)});
    if (n == 0)
      CHECK(b.fused(op, operands, n).length == 0);
    else
      CHECK_THROWS_WITH(b.fused(op, operands, n), Catch::Contains("division by zero"));
  }
}

TEST_CASE("FUSED on an empty domain", "[fused]") {
  CVL_BACKEND(b);
  const vcode::SuperOp map = superop("SUPEROP 0 (FLOAT) (SQRT $0)");
  std::vector<cvl::FusedOperand> operands(1);
  operands[0].vector = floats(b, {});
  CHECK(b.fused(map, operands, 0).length == 0);
  const vcode::SuperOp reduce = superop("SUPEROP 0 (SEGDES) (MIN_REDUCE INT (INDEX (CONST INT 1) (CONST INT 1) $0) $0)");
  operands[0] = {};
  operands[0].segdes = segdes(b, {0, 0, 0});
  CHECK(to_ints(b, b.fused(reduce, operands, 0)) == Ints(3, INT32_MAX));
}

TEST_CASE("a prepared superoperator is planned once for any number of calls", "[fused][prepare]") {
  CVL_BACKEND(b);
  const vcode::SuperOp op =
      superop("SUPEROP 0 (INT SEGDES) (+_REDUCE INT (* INT $0 (CONST INT 2)) $1)");
  const std::uint64_t before = b.stats().fused_plans;
  const auto prepared = b.prepare(op);
  CHECK(b.stats().fused_plans == before + 1);
  for (std::int32_t call = 0; call < 10; ++call) {
    INFO("call " << call);
    for (std::size_t n : {std::size_t{30}, std::size_t{60000}}) {  // host and device paths
      const auto half = static_cast<std::int32_t>(n / 2);
      std::vector<cvl::FusedOperand> operands(2);
      operands[0].vector = ints(b, Ints(n, call));
      operands[1].segdes = segdes(b, {half, half});
      CHECK(to_ints(b, b.fused(*prepared, operands, n)) == Ints(2, 2 * call * half));
    }
  }
  CHECK(b.stats().fused_plans == before + 1);
  // Without prepare, each call plans.
  std::vector<cvl::FusedOperand> operands(2);
  operands[0].vector = ints(b, {1, 2, 3});
  operands[1].segdes = segdes(b, {3});
  CHECK(to_ints(b, b.fused(op, operands, 3)) == Ints{12});
  CHECK(b.stats().fused_plans == before + 2);
}

}  // namespace cvl_test
