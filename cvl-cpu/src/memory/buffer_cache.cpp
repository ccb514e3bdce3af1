#include "memory/buffer_cache.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "memory/address_ranges.hpp"
#include "cvl/errors.hpp"
#include "cvl/memory_limit.hpp"
#include "threads/thread_pool.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kAlignment = 64;
// The arena is made writable in steps of this size (each step is one mprotect call).
constexpr std::size_t kWritableStep = std::size_t{32} << 20;
// The arena's start: huge-page aligned, so that the kernel may back it with huge pages.
constexpr std::size_t kArenaAlignment = std::size_t{2} << 20;
// The smallest arena worth reserving, where address space is short (ulimit -v): halving from
// twice the physical memory down to this.
constexpr std::size_t kArenaMin = std::size_t{64} << 20;

std::size_t page_size() {
  static const std::size_t size = [] {
    const long s = sysconf(_SC_PAGESIZE);
    return s > 0 ? static_cast<std::size_t>(s) : std::size_t{4096};
  }();
  return size;
}

// `n` rounded up to a multiple of `to` (a power of two), or 0 when that overflows.
std::size_t round_up(std::size_t n, std::size_t to) {
  return n > SIZE_MAX - (to - 1) ? 0 : (n + to - 1) & ~(to - 1);
}

[[noreturn]] void throw_no_system_memory(std::size_t bytes, std::uint64_t in_use) {
  throw Error("out of vector memory: " + std::to_string(bytes) +
              " bytes requested, the system has none (" + std::to_string(in_use) + " in use)");
}

std::atomic<double> pooled_bound{1.0};  // set_pooled_bound

// Fresh blocks at least this large are faulted in by several threads, in pieces of this size.
constexpr std::size_t kSharedPopulateMin = std::size_t{4} << 20;

// Fresh pages are about to be written whole: fault them in with one call, which costs the kernel
// less than a fault per page. Most of that cost is zeroing the pages, which threads share: a
// large block is populated in pieces on the pool (otherwise populating is a large share of a
// program's timed region once the rest runs on several threads). Advice only; where it is
// refused, the pages fault one by one.
void prefault(std::byte* data, std::size_t bytes, int threads) {
#ifdef MADV_POPULATE_WRITE
  if (bytes == 0) return;
  if (threads <= 1 || bytes < 2 * kSharedPopulateMin) {
    madvise(data, bytes, MADV_POPULATE_WRITE);
    return;
  }
  const std::size_t pieces = (bytes + kSharedPopulateMin - 1) / kSharedPopulateMin;
  run_tasks(threads - 1, pieces, [&](std::size_t i) {
    const std::size_t from = i * kSharedPopulateMin;
    madvise(data + from, std::min(kSharedPopulateMin, bytes - from), MADV_POPULATE_WRITE);
  });
#endif
}

class Cache {
 public:
  MemoryBlock acquire(std::size_t request, MemoryBudget& budget, bool populate) {
    // Whether a block is mapped follows from its counted size alone, which release() also sees.
    std::size_t bytes = round_up(request, kAlignment);
    const bool mapped = bytes >= kMappedBufferMin;
    if (mapped) bytes = round_up(bytes, page_size());
    if (bytes == 0) throw_memory_limit(request, budget.live(), budget.limit());
    budget.charge(bytes, request);
    live_.fetch_add(bytes, std::memory_order_relaxed);
    if (!mapped) {
      void* data = std::aligned_alloc(kAlignment, bytes);
      if (!data) fail(bytes, request, budget);
      return {static_cast<std::byte*>(data), bytes, SIZE_MAX, &budget};
    }
    MemoryBlock block = take(bytes);
    if (!block.data) fail(bytes, request, budget);
    block.budget = &budget;
    if (populate && block.fresh_from < bytes) {
      prefault(block.data + block.fresh_from, bytes - block.fresh_from, budget.populate_threads());
      block.fresh_from = SIZE_MAX;
    }
    return block;
  }

  void release(MemoryBlock block) {
    if (block.bytes >= kMappedBufferMin) {
      std::lock_guard lock(mutex_);
      mapped_live_ -= block.bytes;
      if (in_arena(block.data)) {
        const std::size_t at = static_cast<std::size_t>(block.data - base_);
        free_.add(at, block.bytes);
        if (block.fresh_from < block.bytes)
          untouched_.add(at + block.fresh_from, block.bytes - block.fresh_from);
      } else {
        munmap(block.data, block.bytes);
      }
    } else {
      std::free(block.data);
    }
    live_.fetch_sub(block.bytes, std::memory_order_relaxed);
    block.budget->refund(block.bytes);
  }

  // Gives the pages of every free range back to the system; what lies above the highest live
  // block is no longer in use.
  void release_pooled() {
    std::lock_guard lock(mutex_);
    for (auto [from, length] : free_.all()) {
      discard(from, length);
    }
    lower_top();
  }

  void set_huge_pages(bool on) {
    std::lock_guard lock(mutex_);
    if (on == huge_pages_) return;  // every backend made says so again
    huge_pages_ = on;
    if (base_) advise_huge_pages();
  }

  std::uint64_t live() const { return live_.load(std::memory_order_relaxed); }

  MemoryStats stats() {
    std::lock_guard lock(mutex_);
    return {live(), mapped_live_, mapped_peak_, pooled(), fresh_, reuses_, top_,
            free_.all().size()};
  }

 private:
  [[noreturn]] void fail(std::size_t bytes, std::size_t request, MemoryBudget& budget) {
    live_.fetch_sub(bytes, std::memory_order_relaxed);
    budget.refund(bytes);
    throw_no_system_memory(request, live());
  }

  bool in_arena(const std::byte* data) const {
    return base_ && data >= base_ && data < base_ + reserved_;
  }

  // A page-multiple block: from the arena when it has room, else a mapping of its own; nullptr
  // when the system refuses. fresh_from says where its never-touched pages begin.
  MemoryBlock take(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    if (!tried_arena_) reserve_arena();
    // Counted first: the arena's bound on freed pages (bound_pooled) includes this block.
    mapped_live_ += bytes;
    mapped_peak_ = std::max(mapped_peak_, mapped_live_);
    MemoryBlock block{nullptr, bytes};
    if (base_) block = take_from_arena(bytes);
    if (!block.data) {
      void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (data == MAP_FAILED) {
        mapped_live_ -= bytes;
        return {nullptr, bytes};
      }
      block = {static_cast<std::byte*>(data), bytes, 0};
      fresh_ += bytes;
    }
    return block;
  }

  // Address space for every vector the limit allows, twice the physical memory (less where the
  // address space is limited), writable only as far as it is used (so strict overcommit
  // accounting counts only that). Nothing is mapped in it until a block needs it.
  void reserve_arena() {
    tried_arena_ = true;
    const long pages = sysconf(_SC_PHYS_PAGES);
    std::size_t want = pages > 0 ? 2 * static_cast<std::size_t>(pages) * page_size()
                                 : std::size_t{16} << 30;
    for (; want >= kArenaMin; want /= 2) {
      want = round_up(want, kArenaAlignment);
      void* start = mmap(nullptr, want + kArenaAlignment, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (start == MAP_FAILED) continue;
      auto* raw = static_cast<std::byte*>(start);
      auto* aligned = reinterpret_cast<std::byte*>(
          round_up(reinterpret_cast<std::uintptr_t>(raw), kArenaAlignment));
      if (aligned > raw) munmap(raw, static_cast<std::size_t>(aligned - raw));
      if (aligned < raw + kArenaAlignment)
        munmap(aligned + want, static_cast<std::size_t>(raw + kArenaAlignment - aligned));
      base_ = aligned;
      reserved_ = want;
      advise_huge_pages();
      return;
    }
  }

  // Huge pages, where wanted: a fault, and a TLB entry, per 2 MiB instead of per 4 KiB, which
  // matters most on a VM whose faults are slow; refused explicitly otherwise, so that a system
  // that gives every mapping huge pages does not either (huge_pages.hpp says when).
  void advise_huge_pages() { madvise(base_, reserved_, huge_pages_ ? MADV_HUGEPAGE : MADV_NOHUGEPAGE); }

  // The arena's place for `bytes`: the smallest free range that holds them (the lowest of
  // equals), else the top, joined to the free range just below it. {nullptr} when the arena is
  // full or may not be made writable that far.
  MemoryBlock take_from_arena(std::size_t bytes) {
    auto& free = free_.all();
    auto best = free.end();
    for (auto it = free.begin(); it != free.end(); ++it)
      if (it->second >= bytes && (best == free.end() || it->second < best->second)) best = it;
    std::size_t at = top_;
    if (best != free.end()) {
      at = best->first;
    } else if (!free.empty() && std::prev(free.end())->first + std::prev(free.end())->second == top_) {
      at = std::prev(free.end())->first;
    }
    if (at + bytes > reserved_ || !make_writable(at + bytes)) return {nullptr, bytes};
    if (at < top_) ++reuses_;
    free_.remove(at, bytes);
    // Pages never touched: those given back unused, then those above the top.
    const std::size_t untouched_before = untouched_.bytes();
    std::size_t fresh_at = untouched_.remove(at, bytes);
    fresh_ += untouched_before - untouched_.bytes();
    if (at + bytes > top_) {
      fresh_ += at + bytes - std::max(at, top_);
      fresh_at = std::min(fresh_at, std::max(at, top_));
      top_ = at + bytes;
      bound_pooled();
    }
    const std::size_t fresh_from = fresh_at == SIZE_MAX ? SIZE_MAX : fresh_at - at;
    return {base_ + at, bytes, fresh_from};
  }

  // The arena grew although freed pages were resident: no free range was large enough. So that
  // fragmentation cannot raise resident memory without bound, freed pages past the most bytes
  // ever live go back to the system, smallest ranges first (the least likely to fit a later
  // request). No tighter: a page given back faults again when reused, and the arena's top, not
  // the freed pages, sets the peak (a tighter bound measured slower at the same peak resident
  // size; bench/RESULTS.md).
  void bound_pooled() {
    const double bound = pooled_bound.load(std::memory_order_relaxed) * double(mapped_peak_);
    while (double(pooled()) > bound) {
      std::size_t from = 0, length = SIZE_MAX;
      for (auto [start, size] : free_.all()) {
        const std::size_t resident = size - untouched_.overlap(start, size);
        if (resident > 0 && size < length) from = start, length = size;
      }
      if (length == SIZE_MAX) return;
      discard(from, length);
    }
  }

  // Bytes of freed pages that are resident.
  std::size_t pooled() const { return free_.bytes() - untouched_.bytes(); }

  // Gives the pages of the free range [from, from + length) back to the system.
  void discard(std::size_t from, std::size_t length) {
    madvise(base_ + from, length, MADV_DONTNEED);
    untouched_.remove(from, length);  // some of it may be untouched already
    untouched_.add(from, length);
  }

  // Makes the arena writable up to `end` (a step at a time); false when the system refuses.
  bool make_writable(std::size_t end) {
    if (end <= writable_) return true;
    const std::size_t to = std::min(round_up(end, kWritableStep), reserved_);
    if (mprotect(base_ + writable_, to - writable_, PROT_READ | PROT_WRITE) != 0) return false;
    writable_ = to;
    return true;
  }

  // Free ranges at the top whose pages were given back leave the arena's used part.
  void lower_top() {
    auto& free = free_.all();
    while (!free.empty()) {
      auto last = std::prev(free.end());
      if (last->first + last->second != top_) return;
      const std::size_t from = last->first, length = last->second;
      // Only wholly untouched ranges: every page above the top is untouched.
      auto untouched = untouched_.all().find(from);
      if (untouched == untouched_.all().end() || untouched->second != length) return;
      untouched_.remove(from, length);
      free_.remove(from, length);
      top_ = from;
    }
  }

  std::atomic<std::uint64_t> live_{0};  // every budget's blocks (stats)
  std::mutex mutex_;  // guards the rest
  std::byte* base_ = nullptr;  // the arena
  std::size_t reserved_ = 0;   // its bytes
  std::size_t writable_ = 0;   // bytes from base_ made writable
  std::size_t top_ = 0;        // bytes from base_ ever given out: above it nothing was touched
  bool tried_arena_ = false;
  bool huge_pages_ = true;
  AddressRanges free_;       // free ranges below top_
  AddressRanges untouched_;  // the parts of free_ whose pages are not resident
  std::uint64_t mapped_live_ = 0;  // bytes of live mapped blocks
  std::uint64_t mapped_peak_ = 0;  // the most mapped_live_ has been
  std::uint64_t fresh_ = 0;
  std::uint64_t reuses_ = 0;
};

// Never destroyed: buffers may be released by static destructors that run after ours would.
Cache& cache() {
  static Cache* const instance = new Cache;
  return *instance;
}

}  // namespace

void populate_memory(const MemoryBlock& block) {
  if (block.fresh_from < block.bytes)
    prefault(block.data + block.fresh_from, block.bytes - block.fresh_from,
             block.budget ? block.budget->populate_threads() : 1);
}

MemoryBlock acquire_memory(std::size_t bytes, MemoryBudget& budget, bool populate) {
  return cache().acquire(bytes, budget, populate);
}

void release_memory(MemoryBlock block) { cache().release(block); }

void release_pooled_memory() { cache().release_pooled(); }

void set_pooled_bound(double fraction_of_peak) {
  pooled_bound.store(fraction_of_peak, std::memory_order_relaxed);
}

void set_huge_pages(bool on) { cache().set_huge_pages(on); }

MemoryStats memory_stats() { return cache().stats(); }

}  // namespace cvl::cpu
