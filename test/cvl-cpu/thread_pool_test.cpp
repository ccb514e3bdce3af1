// The thread pool runs every task exactly once whatever the interleaving, passes a task's
// exception to the caller, and stays usable after it; calls from inside a task or from a second
// thread run on their caller.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "threads/thread_pool.hpp"

namespace cvl::cpu {
namespace {

// Runs `jobs` jobs of `tasks` tasks each and checks every task of every job ran once.
void check_each_task_once(int helpers, std::size_t tasks, int jobs) {
  std::vector<std::atomic<int>> runs(tasks);
  for (int job = 0; job < jobs; ++job) {
    for (auto& r : runs) r.store(0);
    run_tasks(helpers, tasks, [&](std::size_t i) { runs[i].fetch_add(1); });
    for (std::size_t i = 0; i < tasks; ++i) REQUIRE(runs[i].load() == 1);
  }
}

}  // namespace

TEST_CASE("pool: every task runs exactly once, job after job", "[cpu][pool]") {
  // Many short jobs back to back: helpers still finishing one job while the next is published is
  // the case a claim on a stale job would break.
  check_each_task_once(1, 2, 20000);
  check_each_task_once(3, 8, 20000);
  check_each_task_once(3, 1000, 200);
  check_each_task_once(0, 5, 10);  // the caller alone
  // Past the claim word's 16 bits: on the caller alone, still each task once.
  check_each_task_once(2, 70000, 2);
}

// Each test case runs in a process of its own (catch_discover_tests), so this job is the pool's
// first: its helper is hired for it and may start running after the job is published.
TEST_CASE("pool: a helper hired for a job takes part in that job", "[cpu][pool][free-cores]") {
  // Task 0 (the caller's first claim) waits for task 1 to start: only a helper can start it.
  std::atomic<bool> second_started{false};
  std::atomic<bool> waited_out{false};
  run_tasks(1, 2, [&](std::size_t i) {
    if (i == 1) {
      second_started.store(true);
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!second_started.load())
      if (std::chrono::steady_clock::now() > deadline) {
        waited_out.store(true);
        return;
      }
  });
  CHECK_FALSE(waited_out.load());
}

TEST_CASE("pool: a task's exception reaches the caller; the pool still works", "[cpu][pool]") {
  std::atomic<int> ran{0};
  REQUIRE_THROWS_WITH(run_tasks(3, 64,
                                [&](std::size_t i) {
                                  ran.fetch_add(1);
                                  if (i == 5) throw std::runtime_error("task 5 failed");
                                }),
                      "task 5 failed");
  CHECK(ran.load() >= 1);
  CHECK(ran.load() <= 64);
  check_each_task_once(3, 64, 100);
}

TEST_CASE("pool: nested calls and a second caller run on their own thread", "[cpu][pool]") {
  std::vector<std::atomic<int>> inner(8 * 8);
  run_tasks(2, 8, [&](std::size_t i) {
    run_tasks(2, 8, [&](std::size_t j) { inner[i * 8 + j].fetch_add(1); });
  });
  for (auto& r : inner) CHECK(r.load() == 1);

  std::atomic<long> sum_a{0}, sum_b{0};
  std::thread other([&] {
    for (int job = 0; job < 2000; ++job)
      run_tasks(2, 16, [&](std::size_t i) { sum_b.fetch_add(static_cast<long>(i)); });
  });
  for (int job = 0; job < 2000; ++job)
    run_tasks(2, 16, [&](std::size_t i) { sum_a.fetch_add(static_cast<long>(i)); });
  other.join();
  CHECK(sum_a.load() == 2000L * 120);
  CHECK(sum_b.load() == 2000L * 120);
}

TEST_CASE("pool: the default thread count is the cores this process may use", "[cpu][pool]") {
  const int cores = available_cores();
  CHECK(cores >= 1);
  CHECK(cores <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace cvl::cpu
