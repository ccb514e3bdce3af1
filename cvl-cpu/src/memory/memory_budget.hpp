// What one cvl-cpu backend may hold in vector memory: its --max-memory limit, the bytes it holds,
// and the threads that fault in its fresh pages. The arena behind it (buffer_cache.hpp) is one
// per process; each backend charges a budget of its own, so that one instance's options never
// change another's (cvl-cuda's host path and cvl-mpi's local blocks are cvl-cpu backends too).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace cvl::cpu {

class MemoryBudget {
 public:
  // `limit_bytes` 0: the default for host memory (cvl/memory_limit.hpp).
  explicit MemoryBudget(std::uint64_t limit_bytes = 0, int populate_threads = 1);

  // Counts `bytes` as held, or throws the limit's error naming `request` (what was asked for,
  // before rounding) without counting them.
  void charge(std::uint64_t bytes, std::uint64_t request);
  void refund(std::uint64_t bytes) { live_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::uint64_t live() const { return live_.load(std::memory_order_relaxed); }
  // The most bytes held at once since the last call (at the first, since the budget was made);
  // the next interval starts at what is held now (cvl::VectorMemory::take_peak_bytes).
  std::uint64_t take_peak();
  std::uint64_t limit() const { return limit_; }
  int populate_threads() const { return populate_threads_; }

 private:
  const std::uint64_t limit_;
  const int populate_threads_;
  std::atomic<std::uint64_t> live_{0};
  // Raised by charge only when passed: a store only while the holdings grow past it.
  std::atomic<std::uint64_t> peak_{0};
};

// The budget that memory acquired on this thread is charged to: that of the backend whose
// operation is running (MemoryScope), else the process's own (the default limit, one thread),
// for buffers made outside any backend's operation.
const std::shared_ptr<MemoryBudget>& current_budget();

// Makes `budget` the current one on this thread while it lives. A backend opens one in each of
// its operations: the buffers an operation makes are created deep inside the families, which
// take no budget of their own; a buffer keeps the budget it was charged to until it is freed.
class MemoryScope {
 public:
  explicit MemoryScope(const std::shared_ptr<MemoryBudget>& budget);
  ~MemoryScope();
  MemoryScope(const MemoryScope&) = delete;
  MemoryScope& operator=(const MemoryScope&) = delete;

 private:
  const void* previous_;  // the thread's operation scope before this one (thread_pool.hpp)
};

}  // namespace cvl::cpu
