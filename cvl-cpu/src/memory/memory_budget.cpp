#include "memory/memory_budget.hpp"

#include <algorithm>
#include <utility>

#include "cvl/memory_limit.hpp"
#include "threads/thread_pool.hpp"

namespace cvl::cpu {
namespace {

// Never destroyed: buffers may be freed by static destructors that run after ours would.
const std::shared_ptr<MemoryBudget>& process_budget() {
  static const auto* const budget = new std::shared_ptr<MemoryBudget>(std::make_shared<MemoryBudget>());
  return *budget;
}

}  // namespace

MemoryBudget::MemoryBudget(std::uint64_t limit_bytes, int populate_threads)
    : limit_(limit_bytes == 0 ? default_host_memory_limit() : limit_bytes),
      populate_threads_(std::max(populate_threads, 1)) {}

void MemoryBudget::charge(std::uint64_t bytes, std::uint64_t request) {
  const std::uint64_t before = live_.fetch_add(bytes, std::memory_order_relaxed);
  if (before + bytes > limit_ || before + bytes < before) {
    live_.fetch_sub(bytes, std::memory_order_relaxed);
    throw_memory_limit(request, before, limit_);
  }
  const std::uint64_t now = before + bytes;
  std::uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

std::uint64_t MemoryBudget::take_peak() {
  const std::uint64_t now = live();
  return std::max(peak_.exchange(now, std::memory_order_relaxed), now);
}

// The current budget is the thread's operation scope (thread_pool.hpp), which the pool hands on
// to the tasks of its caller's jobs.
const std::shared_ptr<MemoryBudget>& current_budget() {
  const void* scope = operation_scope();
  return scope ? *static_cast<const std::shared_ptr<MemoryBudget>*>(scope) : process_budget();
}

MemoryScope::MemoryScope(const std::shared_ptr<MemoryBudget>& budget)
    : previous_(std::exchange(operation_scope(), &budget)) {}

MemoryScope::~MemoryScope() { operation_scope() = previous_; }

}  // namespace cvl::cpu
