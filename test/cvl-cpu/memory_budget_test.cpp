// Each cvl-cpu backend has a memory budget of its own: making a backend with other options never
// changes the limit or the count of one made before it (the arena behind them is shared). A task
// the pool runs for an operation charges that operation's budget, on whichever thread it runs.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "cvl/errors.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "memory/memory_budget.hpp"
#include "threads/thread_pool.hpp"

namespace cvl {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

Vector upload_ints(Backend& backend, std::size_t count) {
  const std::vector<std::int32_t> values(count, 7);
  return backend.upload(Type::Int, values.data(), values.size());
}

}  // namespace

TEST_CASE("cpu backends: each keeps its own --max-memory and counts its own bytes",
          "[cpu][memory]") {
  BackendOptions tight;
  tight.threads = 1;
  tight.max_memory = 8 * kMiB;
  auto small = make_cpu_backend(tight);
  Vector held = upload_ints(*small, 1 << 20);  // 4 MiB
  const std::uint64_t small_bytes = small->stats().host_bytes_in_use;
  CHECK(small_bytes >= 4 * kMiB);

  // A second backend with the default limit, made later: before budgets, it reset the first's.
  BackendOptions roomy;
  roomy.threads = 2;
  auto large = make_cpu_backend(roomy);
  Vector big = upload_ints(*large, 4 << 20);  // 16 MiB: past the first backend's limit
  CHECK(large->stats().host_bytes_in_use >= 16 * kMiB);
  CHECK(small->stats().host_bytes_in_use == small_bytes);  // the other's 16 MiB are not its own

  REQUIRE_THROWS_AS(upload_ints(*small, 2 << 20), Error);  // 4 + 8 MiB: still limited to 8
  big = Vector{};
  CHECK(large->stats().host_bytes_in_use < 16 * kMiB);
  held = Vector{};
  CHECK(small->stats().host_bytes_in_use == 0);
}

TEST_CASE("cpu memory: a pool task charges its caller's budget, on any thread", "[cpu][memory]") {
  using namespace cvl::cpu;
  const auto budget = std::make_shared<MemoryBudget>(kMiB);
  const MemoryBudget* outside = current_budget().get();
  // Jobs until a helper thread has run some task: the pool runs jobs on the caller alone while
  // other processes hold the cores (core_contention.hpp).
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> on_helpers{0}, wrong{0};
  for (int job = 0; job < 100 && on_helpers.load() == 0; ++job) {
    {
      const MemoryScope charged(budget);
      run_tasks(2, 8, [&](std::size_t) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (std::this_thread::get_id() != caller) on_helpers.fetch_add(1);
        if (current_budget() != budget) wrong.fetch_add(1);
      });
    }
    // Outside any scope again, on every thread.
    run_tasks(2, 8, [&](std::size_t) {
      if (current_budget().get() != outside) wrong.fetch_add(1);
    });
  }
  if (on_helpers.load() == 0) WARN("no helper ran a task (busy cores): only the caller's checked");
  CHECK(wrong.load() == 0);
  CHECK(current_budget().get() == outside);
}

}  // namespace cvl
