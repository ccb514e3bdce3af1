// How cvl-cpu shares work between threads: the thread count, size thresholds, and the two loop
// shapes every op family uses (blocks of elements; blocks of elements cut into segment pieces).
// Blocks run as tasks of the thread pool (thread_pool.hpp): a loop is cut into a few blocks per
// thread, claimed by whichever thread is free, so a thread the OS has descheduled delays little.
// The cut depends only on the sizes and the thread count, never on which thread runs a block.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <type_traits>

#include "cvl/segment_view.hpp"
#include "threads/thread_pool.hpp"
#include "vcode/op.hpp"

namespace cvl::cpu {

// Below these sizes a loop stays on the calling thread: waking a team costs a few microseconds,
// more than a short loop. Memory-bound loops need more elements to pay for it than libm calls.
inline constexpr std::size_t kMemoryBoundThreshold = std::size_t{1} << 15;
inline constexpr std::size_t kComputeBoundThreshold = std::size_t{1} << 11;
// The threshold of an elementwise op, from its ops.def Cost.
inline constexpr std::size_t threshold_for(vcode::Op op) {
  return vcode::info(op).cost == vcode::Cost::Compute ? kComputeBoundThreshold
                                                      : kMemoryBoundThreshold;
}

// Blocks per thread of a team: enough that a descheduled thread holds up little of a loop, few
// enough that per-block work (a partial result, a segment search) stays negligible.
inline constexpr std::size_t kBlocksPerThread = 4;

struct Parallel {
  int threads = 1;  // 1: every loop is sequential, in index order

  // The team size for a loop over `work` items: 1 below the threshold, and at least half a
  // threshold of work per thread above it. Fixed by the sizes and the thread count: the team of
  // loops whose result depends on where they are cut (FLOAT + and * folds regroup by part).
  int fixed_team_for(std::size_t work, std::size_t threshold) const {
    if (threads <= 1 || work < threshold) return 1;
    std::size_t useful = std::max<std::size_t>(2, work / std::max<std::size_t>(1, threshold / 2));
    return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), useful));
  }

  // The same, but 1 while the pool's helpers do not pay (other processes hold the cores), so
  // that the sequential algorithm runs without a parallel one's extra passes: for every loop
  // whose result does not depend on the cut. Two calls for one loop may differ.
  int team_for(std::size_t work, std::size_t threshold) const {
    const int team = fixed_team_for(work, threshold);
    return team > 1 && !helpers_pay() ? 1 : team;
  }
};

// How many blocks a team of `team` threads cuts a loop into.
inline std::size_t blocks_for_team(int team) {
  return team <= 1 ? 1 : static_cast<std::size_t>(team) * kBlocksPerThread;
}

// Runs body(b) for every block b < blocks on `team` threads (the caller and team - 1 helpers).
template <class Body>
void run_blocks(int team, std::size_t blocks, Body&& body) {
  run_tasks(team - 1, blocks, body);
}

// Start of block `b` when `n` items are split into `blocks` contiguous, nearly equal blocks.
inline std::size_t block_begin(std::size_t n, std::size_t b, std::size_t blocks) {
  return n / blocks * b + std::min(b, n % blocks);
}

// Runs body(begin, end) over blocks of [0, n): on the caller alone below the threshold.
template <class Body>
void parallel_for(const Parallel& par, std::size_t n, std::size_t threshold, Body&& body) {
  int team = par.team_for(n, threshold);
  if (team <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  const std::size_t blocks = blocks_for_team(team);
  run_blocks(team, blocks, [&](std::size_t b) {
    body(block_begin(n, b, blocks), block_begin(n, b + 1, blocks));
  });
}

// Whether pred(i) holds for some i < n. Evaluates every i (no early exit) so the loop vectorizes.
template <class Pred>
bool parallel_any(const Parallel& par, std::size_t n, std::size_t threshold, Pred pred) {
  std::atomic<bool> any{false};
  parallel_for(par, n, threshold, [&](std::size_t b, std::size_t e) {
    bool local = false;
    for (std::size_t i = b; i < e; ++i) local |= pred(i);
    if (local) any.store(true, std::memory_order_relaxed);
  });
  return any.load(std::memory_order_relaxed);
}

// Read-only view of a segment descriptor: `offsets` has segments + 1 entries, offsets[k] being
// the start of segment k and offsets[segments] == total (below 2^31: 32 bits; no lengths array).
using SegOffset = std::uint32_t;
using SegmentView = cvl_sem::BasicSegmentView<SegOffset>;
// The view of a wide descriptor, whose total is past the longest vector (each segment still
// fits an INT): 64-bit offsets. Only what streams over it reads it (segdes.cpp: wide_view); the
// loops below take either view.
using WideOffset = std::int64_t;
using WideSegmentView = cvl_sem::BasicSegmentView<WideOffset>;

// One block of a segmented loop: elements [begin, end), split by element count so one
// giant segment among tiny ones still spreads over the team. Segments [first, last) start in
// the share; [begin, head_end) is the tail of segment first - 1, which started in an earlier
// share. Empty segments belong to the share their offset falls in (the last share takes those
// at the very end), so every segment is visited exactly once as a "first..last" segment.
struct Part {
  std::size_t begin = 0, end = 0;
  std::size_t first = 0, last = 0;
  std::size_t head_end = 0;

  bool has_head() const { return begin < head_end; }
};

template <class View>
Part whole_part(const View& sd) {
  return Part{0, sd.total, 0, sd.segments, 0};
}

template <class View>
Part make_part(const View& sd, std::size_t b, std::size_t blocks) {
  using Offset = std::remove_cvref_t<decltype(*sd.offsets)>;
  if (blocks <= 1) return whole_part(sd);
  Part p;
  p.begin = block_begin(sd.total, b, blocks);
  p.end = block_begin(sd.total, b + 1, blocks);
  const Offset* offsets_end = sd.offsets + sd.segments + 1;
  auto first_at_or_after = [&](std::size_t position) {
    return static_cast<std::size_t>(
        std::lower_bound(sd.offsets, offsets_end, static_cast<Offset>(position)) - sd.offsets);
  };
  p.first = b == 0 ? 0 : first_at_or_after(p.begin);
  p.last = b + 1 == blocks ? sd.segments : first_at_or_after(p.end);
  p.head_end = p.first == 0 ? p.begin : std::min(p.end, sd.start(p.first));
  return p;
}

// The segment holding the first position of `p`.
inline std::size_t first_segment(const Part& p) { return p.has_head() ? p.first - 1 : p.first; }

// Calls f(segment, lo, hi) for every piece of `p`: its head first, then each segment starting in
// it (clipped at p.end; empty segments give lo == hi).
template <class View, class F>
void for_each_piece(const View& sd, const Part& p, F&& f) {
  if (p.has_head()) f(p.first - 1, p.begin, p.head_end);
  for (std::size_t k = p.first; k < p.last; ++k)
    f(k, sd.start(k), std::min(sd.start(k + 1), p.end));
}

// Runs body(part, b) for each block b of a segmented loop of sd.total elements (the whole
// descriptor as block 0 below the threshold); returns the number of blocks.
template <class View, class Body>
std::size_t for_each_part(const Parallel& par, const View& sd, std::size_t threshold,
                          Body&& body) {
  int team = par.team_for(sd.total, threshold);
  if (team <= 1) {
    body(whole_part(sd), std::size_t{0});
    return 1;
  }
  const std::size_t blocks = blocks_for_team(team);
  run_blocks(team, blocks, [&](std::size_t b) { body(make_part(sd, b, blocks), b); });
  return blocks;
}

// The first (lowest-position) bad index a loop met; threads record theirs, the caller throws.
struct IndexFault {
  std::size_t position = std::numeric_limits<std::size_t>::max();
  std::int64_t index = 0;
  std::int64_t length = 0;

  bool found() const { return position != std::numeric_limits<std::size_t>::max(); }
  // Keeps the lowest position; safe to call from any thread.
  void merge(const IndexFault& other) {
    if (!other.found()) return;
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (other.position < position) *this = other;
  }
};

}  // namespace cvl::cpu
