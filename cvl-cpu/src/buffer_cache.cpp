#include "buffer_cache.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cvl/errors.hpp"
#include "cvl/memory_limit.hpp"
#include "thread_pool.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kAlignment = 64;
// Pooled ranges kept at most (each is a few kernel objects); past it the smallest is unmapped.
constexpr std::size_t kMaxPooledRanges = 256;

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

std::atomic<int> populate_threads{1};

// Fresh blocks at least this large are faulted in by several threads, in pieces of this size.
constexpr std::size_t kSharedPopulateMin = std::size_t{4} << 20;

// Fresh pages are about to be written whole: fault them in with one call, which costs the kernel
// less than a fault per page. Most of that cost is zeroing the pages, which threads share: a
// large block is populated in pieces on the pool (black-scholes 10M spends a third of its timed
// region populating at two threads otherwise). Advice only; where it is refused, the pages fault
// one by one.
void prefault(std::byte* data, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (bytes == 0) return;
  const int threads = populate_threads.load(std::memory_order_relaxed);
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

struct Range {
  std::byte* data;
  std::size_t size;
};

class Cache {
 public:
  MemoryBlock acquire(std::size_t request, bool populate) {
    // Whether a block is mapped follows from its counted size alone, which release() also sees.
    std::size_t bytes = round_up(request, kAlignment);
    const bool mapped = bytes >= kMappedBufferMin;
    if (mapped) bytes = round_up(bytes, page_size());
    if (bytes == 0) throw_memory_limit(request, live(), limit_.load(std::memory_order_relaxed));
    reserve(bytes, request);
    std::size_t fresh_from = SIZE_MAX;
    void* data = mapped ? map(bytes, populate, fresh_from) : std::aligned_alloc(kAlignment, bytes);
    if (!data) {
      live_.fetch_sub(bytes, std::memory_order_relaxed);
      throw_no_system_memory(request, live());
    }
    return {static_cast<std::byte*>(data), bytes, fresh_from};
  }

  void release(MemoryBlock block) {
    if (block.bytes >= kMappedBufferMin) {
      std::lock_guard lock(mutex_);
      mapped_live_ -= block.bytes;
      // A gathered block is several kernel mappings, and mremap moves only one at a time: it
      // goes back to the pool as its pieces.
      if (auto found = pieces_.find(block.data); found != pieces_.end()) {
        for (const Range& piece : found->second) pool(piece, block);
        pieces_.erase(found);
      } else {
        pool({block.data, block.bytes}, block);
      }
      while (pool_.size() > kMaxPooledRanges) unmap_smallest();
    } else {
      std::free(block.data);
    }
    live_.fetch_sub(block.bytes, std::memory_order_relaxed);
  }

  void release_pooled() {
    std::lock_guard lock(mutex_);
    while (!pool_.empty()) unmap_smallest();
  }

  void set_limit(std::uint64_t bytes) {
    limit_.store(bytes == 0 ? default_host_memory_limit() : bytes, std::memory_order_relaxed);
  }

  std::uint64_t live() const { return live_.load(std::memory_order_relaxed); }

  MemoryStats stats() {
    std::lock_guard lock(mutex_);
    return {live(), mapped_live_, mapped_peak_, pooled_, fresh_, reuses_, gathers_};
  }

 private:
  // Counts `bytes` as live, or throws the limit's error (naming the `request` they round up)
  // without counting them.
  void reserve(std::uint64_t bytes, std::size_t request) {
    const std::uint64_t before = live_.fetch_add(bytes, std::memory_order_relaxed);
    const std::uint64_t limit = limit_.load(std::memory_order_relaxed);
    if (before + bytes > limit || before + bytes < before) {
      live_.fetch_sub(bytes, std::memory_order_relaxed);
      throw_memory_limit(request, before, limit);
    }
  }

  // Puts `range` of the released `block` in the pool, but for its pages from block.fresh_from
  // on, which were never touched: those are unmapped (the pool hands out resident pages).
  void pool(Range range, const MemoryBlock& block) {
    const std::size_t from = static_cast<std::size_t>(range.data - block.data);  // in the block
    if (block.fresh_from < from + range.size) {
      const std::size_t kept = block.fresh_from > from ? block.fresh_from - from : 0;
      munmap(range.data + kept, range.size - kept);
      range.size = kept;
    }
    if (range.size == 0) return;
    pool_.push_back(range);
    pooled_ += range.size;
  }

  // `bytes` (a page multiple) of mapped memory, pooled pages first; nullptr when the system
  // refuses.
  std::byte* map(std::size_t bytes, bool populate, std::size_t& fresh_from) {
    std::lock_guard lock(mutex_);
    std::byte* data = take_one(bytes);
    if (data) {
      ++reuses_;
    } else {
      void* fresh = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (fresh == MAP_FAILED) return nullptr;
      data = static_cast<std::byte*>(fresh);
      std::vector<Range> pieces = gather(data, bytes);
      std::size_t moved = 0;
      for (const Range& piece : pieces) moved += piece.size;
      if (moved > 0) {
        ++gathers_;
        if (moved < bytes) pieces.push_back({data + moved, bytes - moved});  // the fresh rest
        pieces_.emplace(data, std::move(pieces));
      }
      fresh_ += bytes - moved;
      if (populate)
        prefault(data + moved, bytes - moved);
      else
        fresh_from = moved;
    }
    mapped_live_ += bytes;
    mapped_peak_ = std::max(mapped_peak_, mapped_live_);
    return data;
  }

  // The start of the smallest pooled range of at least `bytes`, split off it; nullptr when none.
  std::byte* take_one(std::size_t bytes) {
    auto best = pool_.end();
    for (auto it = pool_.begin(); it != pool_.end(); ++it)
      if (it->size >= bytes && (best == pool_.end() || it->size < best->size)) best = it;
    if (best == pool_.end()) return nullptr;
    std::byte* data = best->data;
    best->data += bytes;
    best->size -= bytes;
    if (best->size == 0) pool_.erase(best);
    pooled_ -= bytes;
    return data;
  }

  // Moves pooled pages, largest ranges first, to the front of the new mapping `to` of `bytes`
  // (replacing its untouched pages); returns where each moved range now lies, in order.
  std::vector<Range> gather(std::byte* to, std::size_t bytes) {
    std::vector<Range> pieces;
    std::size_t moved = 0;
    while (moved < bytes && !pool_.empty()) {
      auto largest = std::max_element(pool_.begin(), pool_.end(),
                                      [](const Range& a, const Range& b) { return a.size < b.size; });
      const std::size_t length = std::min(largest->size, bytes - moved);
      if (mremap(largest->data, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, to + moved) ==
          MAP_FAILED)
        break;  // the rest of the mapping is fresh pages
      pieces.push_back({to + moved, length});
      largest->data += length;
      largest->size -= length;
      if (largest->size == 0) pool_.erase(largest);
      pooled_ -= length;
      moved += length;
    }
    return pieces;
  }

  void unmap_smallest() {
    auto smallest = std::min_element(pool_.begin(), pool_.end(),
                                     [](const Range& a, const Range& b) { return a.size < b.size; });
    munmap(smallest->data, smallest->size);
    pooled_ -= smallest->size;
    pool_.erase(smallest);
  }

  std::atomic<std::uint64_t> live_{0};
  std::atomic<std::uint64_t> limit_{UINT64_MAX};
  std::mutex mutex_;  // guards the rest
  std::vector<Range> pool_;  // freed pages, resident, in no particular order; each one mapping
  // The pieces of each live block that gather() made, by the block's start.
  std::unordered_map<std::byte*, std::vector<Range>> pieces_;
  std::uint64_t pooled_ = 0;
  std::uint64_t mapped_live_ = 0;  // bytes of live mapped blocks
  std::uint64_t mapped_peak_ = 0;  // the most mapped_live_ has been
  std::uint64_t fresh_ = 0;
  std::uint64_t reuses_ = 0;
  std::uint64_t gathers_ = 0;
};

// Never destroyed: buffers may be released by static destructors that run after ours would.
Cache& cache() {
  static Cache* const instance = new Cache;
  return *instance;
}

}  // namespace

void populate_memory(const MemoryBlock& block) {
  if (block.fresh_from < block.bytes)
    prefault(block.data + block.fresh_from, block.bytes - block.fresh_from);
}

MemoryBlock acquire_memory(std::size_t bytes, bool populate) {
  return cache().acquire(bytes, populate);
}

void release_memory(MemoryBlock block) { cache().release(block); }

void release_pooled_memory() { cache().release_pooled(); }

void set_memory_limit(std::uint64_t bytes) { cache().set_limit(bytes); }

void set_populate_threads(int threads) {
  populate_threads.store(std::max(threads, 1), std::memory_order_relaxed);
}

MemoryStats memory_stats() { return cache().stats(); }

}  // namespace cvl::cpu
