#include "memory/memory_budget.hpp"

#include <algorithm>

#include "cvl/memory_limit.hpp"

namespace cvl::cpu {
namespace {

// Never destroyed: buffers may be freed by static destructors that run after ours would.
const std::shared_ptr<MemoryBudget>& process_budget() {
  static const auto* const budget = new std::shared_ptr<MemoryBudget>(std::make_shared<MemoryBudget>());
  return *budget;
}

thread_local const std::shared_ptr<MemoryBudget>* current = nullptr;

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
}

const std::shared_ptr<MemoryBudget>& current_budget() {
  return current ? *current : process_budget();
}

MemoryScope::MemoryScope(const std::shared_ptr<MemoryBudget>& budget) : previous_(current) {
  current = &budget;
}

MemoryScope::~MemoryScope() { current = previous_; }

}  // namespace cvl::cpu
