// cvl-cpu's FUSED is bit for bit its own unfused program at the same thread count and math mode
// (the same fold order and regrouping as scan_reduce.cpp, the same functions), and reuses a
// last-use operand's memory.
#include "cvl_cpu/cvl_cpu.hpp"
#include "fused_support.hpp"

namespace cvl_test {

TEST_CASE("cvl-cpu FUSED is exactly its unfused program at every thread count", "[cpu][fused]") {
  std::mt19937_64 rng(11);
  for (auto [threads, fast] : {std::pair{1, false}, {3, false}, {1, true}, {3, true}}) {
    cvl::BackendOptions options{threads};
    options.fast_math = fast;
    auto b = cvl::make_cpu_backend(options);
    for (const std::string& text : fused_definitions()) {
      const vcode::SuperOp op = superop(text);
      for (Layout layout : kAllLayouts) {
        INFO(text << "\n  threads " << threads << (fast ? " --math fast" : "") << ", layout "
                  << layout_name(layout));
        FusedCase c = random_case(op, make_lengths(layout, 150001, rng), rng);
        auto operands = upload_operands(*b, op, c);
        HostVector expected = download(*b, cvl::run_unfused(*b, op, operands, c.domain));
        check_equal(download(*b, b->fused(op, operands, c.domain)), expected);
      }
    }
  }
}

TEST_CASE("cvl-cpu FUSED writes into a last-use operand", "[cpu][fused][value-semantics]") {
  cvl::Backend& b = reference_backend();
  const vcode::SuperOp op = superop("SUPEROP 0 (FLOAT FLOAT) (+ FLOAT (* FLOAT $0 $0) $1)");
  std::vector<cvl::FusedOperand> operands(2);
  operands[0].vector = floats(b, Floats(3000, 2.0));
  operands[1].vector = floats(b, Floats(3000, 1.0));
  const cvl::Storage* memory = operands[0].vector.storage.get();
  cvl::Vector r = b.fused(op, operands, 3000);
  CHECK(r.storage.get() == memory);
  CHECK(to_floats(b, r) == Floats(3000, 5.0));
}

}  // namespace cvl_test

namespace cvl_test {

// NaN restarts MAX and MIN, a value beyond the fold's identity (-1e36 for MAX) is never the
// extreme, -0.0 equals 0.0: the one-pass max_index must give what the two reductions give on
// such values too, in segments of every layout, with one thread and with several.
TEST_CASE("cvl-cpu's one-pass max_index and min_index are their two reductions",
          "[cpu][fused][nested]") {
  const std::vector<std::string> definitions = {
      "SUPEROP 0 (FLOAT SEGDES INT) (MIN_REDUCE INT (SELECT INT (= FLOAT (DIST FLOAT (MAX_REDUCE "
      "FLOAT $0 $1) $1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT $2 $1)) $1)",
      "SUPEROP 0 (FLOAT SEGDES INT INT) (MAX_REDUCE INT (SELECT INT (= FLOAT $0 (DIST FLOAT "
      "(MIN_REDUCE FLOAT $0 $1) $1)) (INDEX $2 $3 $1) (CONST INT -5)) $1)",
      "SUPEROP 0 (INT SEGDES INT) (MIN_REDUCE INT (SELECT INT (= INT (DIST INT (MAX_REDUCE INT $0 "
      "$1) $1) $0) (INDEX (CONST INT 0) (CONST INT 1) $1) (DIST INT $2 $1)) $1)",
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> specials = {nan, 0.0, -0.0, inf, -inf, -1e37, 1e37, 1.5, 1.5, -2.0};
  std::mt19937_64 rng(23);
  for (int threads : {1, 3}) {
    auto b = cvl::make_cpu_backend(cvl::BackendOptions{threads});
    for (const std::string& text : definitions) {
      const vcode::SuperOp op = superop(text);
      for (Layout layout : kAllLayouts) {
        for (int special_rate : {0, 50, 3}) {  // none, some, mostly specials
          INFO(text << "\n  threads " << threads << ", layout " << layout_name(layout)
                    << ", specials 1 in " << special_rate);
          FusedCase c = random_case(op, make_lengths(layout, 70001, rng), rng);
          if (c.vectors[0].type == Type::Float) {
            for (double& x : c.vectors[0].f)
              if (special_rate > 0 && rng() % special_rate == 0) x = specials[rng() % specials.size()];
              else x = static_cast<double>(rng() % 8);  // ties
          } else {
            for (auto& x : c.vectors[0].i) x = static_cast<std::int32_t>(rng() % 8) - 4;
          }
          auto operands = upload_operands(*b, op, c);
          auto theirs = upload_operands(*b, op, c);
          HostVector expected = download(*b, cvl::run_unfused(*b, op, theirs, c.domain));
          check_equal(download(*b, b->fused(op, operands, c.domain)), expected);
        }
      }
    }
  }
}

}  // namespace cvl_test
