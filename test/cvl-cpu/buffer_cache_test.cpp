// The buffer cache: freed pages serve later requests at the same addresses (split off one freed
// range, or neighbours merged), so fresh pages are touched only for what no freed page covers;
// fragmentation gives pages back rather than raise resident memory; every block is usable
// memory; the counts return to zero; the limit refuses before anything changes.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "memory/buffer_cache.hpp"
#include "memory/huge_pages.hpp"
#include "thp_eligible.hpp"
#include "cvl/errors.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Blocks charged to a budget of the test's own (the default limit), so that what other tests of
// the process hold never counts.
MemoryBlock acquire(std::size_t bytes, bool populate = true) {
  static MemoryBudget budget;
  return acquire_memory(bytes, budget, populate);
}

// Writes and reads back every byte of a block (a block of unmapped pages would crash here).
void check_usable(const MemoryBlock& block, unsigned char fill) {
  std::memset(block.data, fill, block.bytes);
  for (std::size_t i = 0; i < block.bytes; i += 4096)
    REQUIRE(static_cast<unsigned char>(block.data[i]) == fill);
  REQUIRE(static_cast<unsigned char>(block.data[block.bytes - 1]) == fill);
}

}  // namespace

// [huge-pages]: skipped where the kernel gives no mapping huge pages (main.cpp).
TEST_CASE("cache: huge pages asked for or refused as set", "[cpu][cache][huge-pages]") {
  using test::thp_eligible;
  const MemoryBlock block = acquire(4 * kMiB);
  check_usable(block, 0x3c);
  set_huge_pages(false);
  CHECK(thp_eligible(block.data) == 0);
  set_huge_pages(true);
  CHECK(thp_eligible(block.data) == 1);
  set_huge_pages(wants_huge_pages(HugePages::Auto));
  CHECK(thp_eligible(block.data) == (wants_huge_pages(HugePages::Auto) ? 1 : 0));
  release_memory(block);
}

TEST_CASE("cache: the huge-page policy's fixed answers", "[cpu][cache]") {
  CHECK(wants_huge_pages(HugePages::On));
  CHECK_FALSE(wants_huge_pages(HugePages::Off));
  CHECK(wants_huge_pages(HugePages::Auto) == !free_pages_go_to_hypervisor());
  CHECK(huge_pages_description(HugePages::Off) == "--huge-pages off: off");
  CHECK(huge_pages_description(HugePages::Auto).rfind("--huge-pages auto: ", 0) == 0);
}

TEST_CASE("cache: a freed mapping serves the next request of its size or less", "[cpu][cache]") {
  release_pooled_memory();
  const MemoryStats before = memory_stats();
  MemoryBlock a = acquire(4 * kMiB);
  check_usable(a, 1);
  release_memory(a);
  MemoryBlock b = acquire(3 * kMiB);  // split off the freed 4 MiB
  check_usable(b, 2);
  MemoryBlock c = acquire(kMiB);      // the rest of it
  check_usable(c, 3);
  CHECK(b.data == a.data);  // the same pages, never moved
  CHECK(c.data == a.data + 3 * kMiB);
  const MemoryStats after = memory_stats();
  CHECK(after.fresh - before.fresh == 4 * kMiB);
  CHECK(after.reuses - before.reuses == 2);
  CHECK(after.mapped_peak - before.mapped_peak <= 4 * kMiB);
  release_memory(b);
  release_memory(c);
  CHECK(memory_stats().live == before.live);
}

TEST_CASE("cache: pages acquired unpopulated and never touched are unmapped, not pooled",
          "[cpu][cache]") {
  release_pooled_memory();
  const MemoryStats before = memory_stats();
  // Fresh pages: which ones are untouched is reported, and they do not go to the pool.
  MemoryBlock lazy = acquire(4 * kMiB, /*populate=*/false);
  CHECK(lazy.fresh_from == 0);
  release_memory(lazy);
  CHECK(memory_stats().pooled == before.pooled);
  // Written after all (populated first, as a deferred fill does): pooled like any other block.
  MemoryBlock used = acquire(4 * kMiB, /*populate=*/false);
  populate_memory(used);
  check_usable(used, 5);
  used.fresh_from = SIZE_MAX;
  release_memory(used);
  CHECK(memory_stats().pooled == before.pooled + 4 * kMiB);
  // From the pool: resident pages, none reported fresh.
  MemoryBlock pooled = acquire(4 * kMiB, /*populate=*/false);
  CHECK(pooled.fresh_from >= pooled.bytes);
  check_usable(pooled, 6);
  release_memory(pooled);
  CHECK(memory_stats().live == before.live);
}

#ifdef MADV_POPULATE_WRITE
// Whether every page of a block is resident (faulted in).
static bool all_resident(const MemoryBlock& block) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> pages((block.bytes + page - 1) / page);
  REQUIRE(mincore(block.data, block.bytes, pages.data()) == 0);
  for (unsigned char p : pages)
    if (!(p & 1)) return false;
  return true;
}

// [populate-write]: skipped where the kernel refuses the advice (pages then fault when written).
TEST_CASE("cache: a large fresh block is faulted in whole, in pieces on the threads",
          "[cpu][cache][populate-write]") {
  release_pooled_memory();
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (int threads : {1, 2, 3}) {
    MemoryBudget budget(0, threads);
    // Pieces of 4 MiB and a last, shorter one: every page resident before anything writes it.
    MemoryBlock block = acquire_memory(13 * kMiB + 5 * page, budget);
    INFO("threads " << threads);
    CHECK(all_resident(block));
    check_usable(block, 7);
    release_memory(block);
    release_pooled_memory();
  }
}
#endif

TEST_CASE("cache: freed neighbours are merged and serve a larger request in place",
          "[cpu][cache]") {
  release_pooled_memory();
  const MemoryStats before = memory_stats();
  std::vector<MemoryBlock> small;
  for (unsigned char k = 0; k < 4; ++k) {
    small.push_back(acquire(kMiB));
    check_usable(small.back(), k);
  }
  MemoryBlock above = acquire(kMiB);  // keeps the four from being the arena's top
  // Freed in stack order, as VCODE frees: one range of 4 MiB.
  for (auto block = small.rbegin(); block != small.rend(); ++block) release_memory(*block);
  CHECK(memory_stats().free_ranges == before.free_ranges + 1);
  MemoryBlock big = acquire(4 * kMiB);
  check_usable(big, 7);
  const MemoryStats after = memory_stats();
  CHECK(big.data == small.front().data);
  CHECK(after.fresh - before.fresh == 5 * kMiB);  // the four and `above`, nothing more
  // A request no freed range fits goes above everything: fresh pages.
  release_memory(big);
  MemoryBlock bigger = acquire(5 * kMiB);
  check_usable(bigger, 8);
  CHECK(bigger.data > above.data);
  CHECK(memory_stats().fresh - after.fresh == 5 * kMiB);
  release_memory(bigger);
  release_memory(above);
  CHECK(memory_stats().live == before.live);
  CHECK(memory_stats().mapped_live == before.mapped_live);
}

TEST_CASE("cache: a freed block in the middle serves a request that fits it", "[cpu][cache]") {
  release_pooled_memory();
  MemoryBlock a = acquire(2 * kMiB);
  MemoryBlock b = acquire(3 * kMiB);
  MemoryBlock c = acquire(2 * kMiB);
  release_memory(b);
  // The smallest freed range that holds it, not the top.
  MemoryBlock d = acquire(3 * kMiB - 4096);
  CHECK(d.data == b.data);
  CHECK(d.fresh_from >= d.bytes);
  check_usable(d, 9);
  for (const MemoryBlock& block : {a, c, d}) release_memory(block);
}

TEST_CASE("cache: fragmentation gives freed pages back instead of raising resident memory",
          "[cpu][cache]") {
  release_pooled_memory();
  // Best fit with neighbours merged rarely leaves more freed pages than were ever live, the
  // default bound: a quarter of that here.
  set_pooled_bound(0.25);
  // Sixteen 4 MiB blocks, every other one freed: 32 MiB freed in ranges too small for 8 MiB.
  std::vector<MemoryBlock> blocks;
  for (int k = 0; k < 16; ++k) {
    blocks.push_back(acquire(4 * kMiB));
    check_usable(blocks.back(), static_cast<unsigned char>(k));
  }
  for (std::size_t k = 0; k < blocks.size(); k += 2) release_memory(blocks[k]);
  const MemoryStats before = memory_stats();
  REQUIRE(before.pooled == 32 * kMiB);
  REQUIRE(before.mapped_peak < 4 * 32 * kMiB);
  MemoryBlock large = acquire(8 * kMiB);
  check_usable(large, 42);
  // Resident freed pages stay within the bound; what was given back faults anew when reused.
  const MemoryStats after = memory_stats();
  CHECK(after.pooled <= after.mapped_peak / 4);
  CHECK(after.pooled > 0);
  std::vector<MemoryBlock> again;
  for (int k = 0; k < 8; ++k) {
    again.push_back(acquire(4 * kMiB));
    check_usable(again.back(), 43);
  }
  CHECK(memory_stats().fresh - after.fresh == 32 * kMiB - after.pooled);
  for (const MemoryBlock& block : again) release_memory(block);
  release_memory(large);
  for (std::size_t k = 1; k < blocks.size(); k += 2) release_memory(blocks[k]);
  set_pooled_bound(1);
}

TEST_CASE("cache: small blocks and the size where mapping starts", "[cpu][cache]") {
  const MemoryStats before = memory_stats();
  // Just below the mapped size, but rounding up to it: whether a block is mapped must follow
  // from its counted size, which is all release sees.
  for (std::size_t request : {std::size_t{100}, kMappedBufferMin - 10, kMappedBufferMin - 64,
                              kMappedBufferMin, kMappedBufferMin + 1}) {
    MemoryBlock block = acquire(request);
    CHECK(block.bytes >= request);
    CHECK(reinterpret_cast<std::uintptr_t>(block.data) % 64 == 0);
    check_usable(block, 5);
    release_memory(block);
  }
  CHECK(memory_stats().live == before.live);
}

TEST_CASE("cache: the limit refuses a request before counting it", "[cpu][cache]") {
  MemoryBudget limited(8 * kMiB);
  MemoryBlock a = acquire_memory(6 * kMiB, limited);
  const std::uint64_t live = memory_stats().live;
  REQUIRE_THROWS_AS(acquire_memory(4 * kMiB, limited), cvl::Error);
  CHECK(memory_stats().live == live);
  CHECK(limited.live() == a.bytes);
  release_memory(a);
  CHECK(limited.live() == 0);
  MemoryBlock b = acquire_memory(4 * kMiB, limited);  // fits now
  release_memory(b);
}

TEST_CASE("cache: budgets are separate: one's limit and bytes never touch another's",
          "[cpu][cache]") {
  MemoryBudget small(8 * kMiB), large(64 * kMiB);
  MemoryBlock in_large = acquire_memory(32 * kMiB, large);
  MemoryBlock in_small = acquire_memory(6 * kMiB, small);  // the other's 32 MiB do not count
  CHECK(small.live() == in_small.bytes);
  CHECK(large.live() == in_large.bytes);
  REQUIRE_THROWS_AS(acquire_memory(4 * kMiB, small), cvl::Error);
  MemoryBlock more = acquire_memory(16 * kMiB, large);  // the small one's limit is not its own
  for (const MemoryBlock& block : {in_large, in_small, more}) release_memory(block);
  CHECK(small.live() == 0);
  CHECK(large.live() == 0);
}

}  // namespace cvl::cpu
