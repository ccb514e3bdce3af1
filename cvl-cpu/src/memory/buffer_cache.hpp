// Where cvl-cpu's buffer memory comes from, and the --max-memory accounting of it.
//
// Large buffers live in one arena: address space reserved once, made writable as far as it is
// used. A freed block's pages stay resident and serve later requests at the same addresses
// (the smallest freed range that holds the request, neighbours merged; VCODE frees mostly in
// stack order, so the holes it leaves fit what comes next), so a page is faulted in once and
// its page-table entry never changes: where page-table changes are expensive (a VM with shadow
// page tables charges about 5 us a page) that dominates a program's run time (bench/RESULTS.md).
// A request that no freed range holds goes to the arena's top; when freed pages that did
// not fit are then resident past the most bytes ever live, the smallest ranges are given back
// to the system, so fragmentation cannot raise resident memory without bound. The arena
// asks for huge pages (a fault per 2 MiB) unless told not to (set_huge_pages). Past its end (a limit above twice the physical
// memory), a block is a mapping of its own. Small buffers come from the C library's allocator.
// Process-wide and thread-safe; each block is charged to a backend's MemoryBudget, which holds
// the --max-memory limit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/memory_budget.hpp"

namespace cvl::cpu {

struct MemoryBlock {
  std::byte* data = nullptr;
  std::size_t bytes = 0;  // bytes counted as in use: the request rounded up to 64 or a page
  // Acquired without `populate`: the offset of the first page never touched (the pages before it
  // are resident; some after it may be too); past `bytes` when none are.
  std::size_t fresh_from = SIZE_MAX;
  MemoryBudget* budget = nullptr;  // charged for `bytes`; populate_memory uses its threads
};

// At least `bytes` bytes, 64-byte aligned, charged to `budget` (which must outlive the block).
// Throws cvl::Error (out of vector memory) when the budget's live total would pass its limit,
// or when the system has no memory, before anything changes.
// `populate`: the caller writes the block at once, so fresh pages are faulted in with one call;
// without it they fault when first touched, if ever.
MemoryBlock acquire_memory(std::size_t bytes, MemoryBudget& budget, bool populate = true);
// Faults in the fresh pages of a block acquired without `populate` (from fresh_from on), before
// it is written whole: one call costs the kernel less than a fault a page. Advice only.
void populate_memory(const MemoryBlock& block);
// Gives back a block from acquire_memory, and refunds its budget.
void release_memory(MemoryBlock block);

// Gives every freed page back to the system: the process's resident memory drops to its live
// blocks (tests start from an empty pool with it).
void release_pooled_memory();

// How many freed pages stay resident when the arena grows, as a fraction of the most bytes ever
// live (default 1; tests lower it to see pages given back).
void set_pooled_bound(double fraction_of_peak);

// Whether the arena asks for huge pages (default yes); applies to its pages not yet faulted in.
void set_huge_pages(bool on);

// What the cache holds and has done; for tests and diagnostics.
struct MemoryStats {
  std::uint64_t live = 0;          // bytes of blocks given out and not yet released (all budgets)
  std::uint64_t mapped_live = 0;   // the part of `live` in page mappings
  std::uint64_t mapped_peak = 0;   // the most `mapped_live` has been
  std::uint64_t pooled = 0;        // bytes of freed pages kept for reuse
  std::uint64_t fresh = 0;         // bytes given out whose pages were untouched (fault once)
  std::uint64_t reuses = 0;        // requests served, wholly or partly, by freed pages
  std::uint64_t arena_top = 0;     // bytes of the arena ever given out (above: never touched)
  std::uint64_t free_ranges = 0;   // separate free ranges below arena_top
};
MemoryStats memory_stats();

// Requests of at least this many bytes are page multiples from the arena.
inline constexpr std::size_t kMappedBufferMin = std::size_t{256} << 10;

}  // namespace cvl::cpu
