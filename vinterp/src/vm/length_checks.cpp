// Length rules over lengths that may be pending on the device (machine.hpp): decided at once when
// the lengths are known, else kept until a synchronization has resolved them.
#include "machine.hpp"

namespace vm {

void Machine::require_equal(const cvl::Length& a, const cvl::Length& b, LengthMessage message) {
  if (cvl::same_count(a, b)) return;
  if (a.known() && b.known()) fail(message(a.get(), b.get()));
  kept_checks_.push_back({a, b, pc_, [](std::size_t x, std::size_t y) { return x == y; },
                          std::move(message)});
}

void Machine::require_at_most(const cvl::Length& n, std::size_t limit, LengthMessage message) {
  if (n.bound() <= limit) return;
  if (n.known()) fail(message(n.get(), limit));
  kept_checks_.push_back({n, cvl::Length(limit), pc_,
                          [](std::size_t x, std::size_t y) { return x <= y; }, std::move(message)});
}

void Machine::require_length_rules(std::span<const vcode::LengthRule> rules,
                                   std::span<const cvl::RuleOperand> operands) {
  cvl::for_each_length_rule(rules, operands,
                            [&](const cvl::Length& a, const cvl::Length& b,
                                const vcode::LengthRule& rule) {
                              require_equal(a, b, [rule](std::size_t x, std::size_t y) {
                                return vcode::length_rule_message(rule, x, y);
                              });
                            });
}

void Machine::run_ready_checks() {
  if (kept_checks_.empty()) return;
  const std::uint64_t syncs = backend_.synchronizations();
  if (syncs == syncs_checked_) return;  // nothing new is known
  syncs_checked_ = syncs;
  const std::uint32_t pc = pc_;
  std::size_t kept = 0;
  for (KeptCheck& check : kept_checks_) {
    if (!check.a.known() || !check.b.known()) {
      kept_checks_[kept++] = std::move(check);
      continue;
    }
    const std::size_t a = check.a.get(), b = check.b.get();
    if (!check.holds(a, b)) {
      pc_ = check.pc;  // the error names the instruction that made the check
      fail(check.message(a, b));
    }
  }
  kept_checks_.resize(kept);
  pc_ = pc;
}

void Machine::run_all_checks() {
  if (kept_checks_.empty()) return;
  for (const KeptCheck& check : kept_checks_)
    if (!check.a.known() || !check.b.known()) {
      backend_.synchronize();
      break;
    }
  syncs_checked_ = ~std::uint64_t{0};  // run them whatever the counter says
  run_ready_checks();
}

void Machine::download(const Value& v, std::size_t first, std::size_t count, void* out) {
  backend_.download(v.vector(), first, count, out);
  run_ready_checks();
}

}  // namespace vm
