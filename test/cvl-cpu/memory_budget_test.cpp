// Each cvl-cpu backend has a memory budget of its own: making a backend with other options never
// changes the limit or the count of one made before it (the arena behind them is shared). A task
// the pool runs for an operation charges that operation's budget, on whichever thread it runs.
// A vector of one value (per segment) is charged only once its elements are written.
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

Segdes one_segment(Backend& backend, std::int32_t length) {
  return backend.make_segdes(backend.upload(Type::Int, &length, 1));
}

}  // namespace

TEST_CASE("cpu backends: a vector of one value is charged when its elements are written",
          "[cpu][memory]") {
  BackendOptions tight;
  tight.threads = 1;
  tight.max_memory = 8 * kMiB;
  auto backend = make_cpu_backend(tight);
  const std::int32_t seven = 7;
  const std::uint64_t before = backend->stats().host_bytes_in_use;
  // 4 Mi INTs (16 MiB): past the limit, were they written. An elementwise op reads the value.
  Vector spread =
      backend->distribute(backend->upload(Type::Int, &seven, 1), one_segment(*backend, 4 << 20));
  std::vector<Vector> operands{spread, spread};
  Vector doubled = backend->elementwise(vcode::Op::Add, Type::Int, operands);
  CHECK(backend->stats().host_bytes_in_use < before + kMiB);
  // Reading the elements writes them: refused, and the vector is left as it was.
  std::int32_t read = 0;
  REQUIRE_THROWS_AS(backend->download(doubled, 5, 1, &read), Error);
  CHECK(backend->stats().host_bytes_in_use < before + kMiB);

  BackendOptions roomy;
  roomy.threads = 1;
  auto large = make_cpu_backend(roomy);
  // Two segments' values, each spread over 2 Mi elements (SegmentValues), and LENGTHS of 2^16
  // segments of 7: neither charged until read.
  const std::int32_t values[2] = {3, 4}, halves[2] = {2 << 20, 2 << 20};
  const Segdes two = large->make_segdes(large->upload(Type::Int, halves, 2));
  Vector per_segment = large->distribute(large->upload(Type::Int, values, 2), two);
  const Segdes sevens = large->make_segdes(
      large->distribute(large->upload(Type::Int, &seven, 1), one_segment(*large, 1 << 16)));
  const std::uint64_t made = large->stats().host_bytes_in_use;
  Vector lengths = large->segment_lengths(sevens);
  CHECK(large->stats().host_bytes_in_use < made + 64 * 1024);
  large->download(per_segment, 3 << 20, 1, &read);
  CHECK(read == 4);
  const std::uint64_t written = large->stats().host_bytes_in_use;
  CHECK(written >= made + 16 * kMiB);
  large->download(lengths, 5, 1, &read);
  CHECK(read == 7);
  CHECK(large->stats().host_bytes_in_use >= written + 256 * 1024);
}

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

TEST_CASE("cpu memory: another thread adopting the caller's operation scope charges its budget",
          "[cpu][memory]") {
  using namespace cvl::cpu;
  const auto callers = std::make_shared<MemoryBudget>(kMiB);
  const auto threads_own = std::make_shared<MemoryBudget>(kMiB);
  const MemoryScope charged(callers);
  const void* const handed_on = operation_scope();  // what run_tasks takes on its caller

  // What the other thread sees: before, inside and after an adoption, first outside any scope,
  // then inside a scope of its own.
  const MemoryBudget *bare_before = nullptr, *bare_inside = nullptr, *bare_after = nullptr;
  const MemoryBudget *own_inside = nullptr, *own_after = nullptr;
  std::thread other([&] {
    bare_before = current_budget().get();
    {
      const AdoptedOperationScope adopted(handed_on);
      bare_inside = current_budget().get();
    }
    bare_after = current_budget().get();
    const MemoryScope own(threads_own);
    {
      const AdoptedOperationScope adopted(handed_on);
      own_inside = current_budget().get();
    }
    own_after = current_budget().get();
  });
  other.join();

  REQUIRE(bare_before != callers.get());  // a fresh thread has the process's budget
  CHECK(bare_inside == callers.get());
  CHECK(bare_after == bare_before);
  CHECK(own_inside == callers.get());
  CHECK(own_after == threads_own.get());
  CHECK(current_budget() == callers);  // the caller's own is untouched
}

TEST_CASE("cpu memory: a pool task charges its caller's budget, on any thread", "[cpu][memory]") {
  using namespace cvl::cpu;
  const auto budget = std::make_shared<MemoryBudget>(kMiB);
  const MemoryBudget* outside = current_budget().get();
  // Whichever thread runs each task: the caller alone while other processes hold the cores
  // (core_contention.hpp), helpers too otherwise. A helper's adoption of the caller's scope is
  // checked on a thread of the test's own above.
  std::atomic<int> wrong{0};
  for (int job = 0; job < 20; ++job) {
    {
      const MemoryScope charged(budget);
      run_tasks(2, 8, [&](std::size_t) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (current_budget() != budget) wrong.fetch_add(1);
      });
      if (current_budget() != budget) wrong.fetch_add(1);
    }
    // Outside any scope again, on every thread.
    run_tasks(2, 8, [&](std::size_t) {
      if (current_budget().get() != outside) wrong.fetch_add(1);
    });
  }
  CHECK(wrong.load() == 0);
  CHECK(current_budget().get() == outside);
}

TEST_CASE("cpu backends: the vector memory peak is the most held since it was last taken",
          "[cpu][memory]") {
  BackendOptions one;
  one.threads = 1;
  auto backend = make_cpu_backend(one);
  VectorMemory* memory = backend->vector_memory();
  REQUIRE(memory);
  memory->take_peak_bytes();  // from here on
  const std::uint64_t before = memory->bytes_in_use();
  {
    Vector transient = upload_ints(*backend, 1 << 20);  // 4 MiB, freed before the peak is read
    CHECK(memory->bytes_in_use() >= before + 4 * kMiB);
  }
  Vector kept = upload_ints(*backend, 1 << 18);  // 1 MiB, still held
  CHECK(memory->bytes_in_use() < before + 2 * kMiB);
  CHECK(memory->take_peak_bytes() >= before + 4 * kMiB);
  // The next interval starts at what is held now: the freed 4 MiB are no longer in it.
  const std::uint64_t next = memory->take_peak_bytes();
  CHECK(next >= before + kMiB);
  CHECK(next < before + 2 * kMiB);
}

}  // namespace cvl
