// Where cvl-cpu's buffer memory comes from, and the --max-memory accounting of it.
//
// A large buffer is a page mapping. Freed ones are kept as a pool of resident pages that serve
// later requests without page faults (a fault costs about 2 us a page here, more than most
// operations spend on the page): a request takes the pooled range that fits best, split off, or
// when none is large enough, the pooled pages moved together (mremap moves pages, it never copies
// them) into a new mapping, fresh pages only for what the pool lacks. So the pages mapped never
// exceed the most bytes that were live at once: peak resident memory is the peak of live vectors,
// not an allocator's fragmentation (a heap cannot put a 400 MB vector in two 200 MB holes).
// Small buffers come from the C library's allocator. Process-wide and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cvl::cpu {

struct MemoryBlock {
  std::byte* data = nullptr;
  std::size_t bytes = 0;  // bytes counted as in use: the request rounded up to 64 or a page
  // Acquired without `populate`: the offset from which the pages are fresh, never touched (the
  // pool's pages before it are resident); past `bytes` when none are.
  std::size_t fresh_from = SIZE_MAX;
};

// At least `bytes` bytes, 64-byte aligned. Throws cvl::Error (out of vector memory) when the
// live total would pass the limit, or when the system has no memory, before anything changes.
// `populate`: the caller writes the block at once, so fresh pages are faulted in with one call;
// without it they fault when first touched, if ever (a vector whose elements may never be
// written: Buffer::defer_fill).
MemoryBlock acquire_memory(std::size_t bytes, bool populate = true);
// Faults in the fresh pages of a block acquired without `populate` (from fresh_from on), before
// it is written whole: one call costs the kernel less than a fault a page. Advice only.
void populate_memory(const MemoryBlock& block);
// Gives back a block from acquire_memory.
void release_memory(MemoryBlock block);

// Unmaps every pooled page: the process's resident memory drops to its live blocks (tests start
// from an empty pool with it).
void release_pooled_memory();

// The limit on live bytes (BackendOptions::max_memory; 0: 3/4 of physical memory).
void set_memory_limit(std::uint64_t bytes);
// The threads (the backend's count) that fault in the fresh pages of a large block together.
void set_populate_threads(int threads);

// What the cache holds and has done; for tests and diagnostics.
struct MemoryStats {
  std::uint64_t live = 0;          // bytes of blocks given out and not yet released
  std::uint64_t mapped_live = 0;   // the part of `live` in page mappings
  std::uint64_t mapped_peak = 0;   // the most `mapped_live` has been
  std::uint64_t pooled = 0;        // bytes of freed pages kept for reuse
  std::uint64_t fresh = 0;         // bytes of new pages mapped so far (each faulted once)
  std::uint64_t reuses = 0;        // requests served by one pooled range
  std::uint64_t gathers = 0;       // requests served by pooled ranges moved together
};
MemoryStats memory_stats();

// Requests of at least this many bytes get a mapping of their own.
inline constexpr std::size_t kMappedBufferMin = std::size_t{256} << 10;

}  // namespace cvl::cpu
