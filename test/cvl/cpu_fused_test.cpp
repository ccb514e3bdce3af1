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
