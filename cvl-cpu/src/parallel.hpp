// How cvl-cpu shares work between threads: the thread count, size thresholds, and the two loop
// shapes every op family uses (blocks of elements; blocks of elements cut into segment pieces).
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "cvl/segment_view.hpp"
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

struct Parallel {
  int threads = 1;  // 1: every loop is sequential, in index order

  // The team size for a loop over `work` items: 1 below the threshold, and at least half a
  // threshold of work per thread above it.
  int team_for(std::size_t work, std::size_t threshold) const {
    if (threads <= 1 || work < threshold) return 1;
    std::size_t useful = std::max<std::size_t>(2, work / std::max<std::size_t>(1, threshold / 2));
    return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), useful));
  }
};

// Start of block `t` when `n` items are split into `team` contiguous, nearly equal blocks.
inline std::size_t block_begin(std::size_t n, int t, int team) {
  auto tt = static_cast<std::size_t>(t), size = static_cast<std::size_t>(team);
  return n / size * tt + std::min(tt, n % size);
}

// Runs body(begin, end) over blocks of [0, n): on the caller alone below the threshold.
template <class Body>
void parallel_for(const Parallel& par, std::size_t n, std::size_t threshold, Body&& body) {
  int team = par.team_for(n, threshold);
  if (team <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    int t = omp_get_thread_num(), size = omp_get_num_threads();
    body(block_begin(n, t, size), block_begin(n, t + 1, size));
  }
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
// the start of segment k and offsets[segments] == total.
using SegView = cvl_sem::SegmentView;

// One thread's share of a segmented loop: elements [begin, end), split by element count so one
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

inline Part whole_part(const SegView& sd) { return Part{0, sd.total, 0, sd.segments, 0}; }

inline Part make_part(const SegView& sd, int t, int team) {
  if (team <= 1) return whole_part(sd);
  Part p;
  p.begin = block_begin(sd.total, t, team);
  p.end = block_begin(sd.total, t + 1, team);
  const std::int64_t* offsets_end = sd.offsets + sd.segments + 1;
  auto first_at_or_after = [&](std::size_t position) {
    return static_cast<std::size_t>(
        std::lower_bound(sd.offsets, offsets_end, static_cast<std::int64_t>(position)) -
        sd.offsets);
  };
  p.first = t == 0 ? 0 : first_at_or_after(p.begin);
  p.last = t == team - 1 ? sd.segments : first_at_or_after(p.end);
  p.head_end = p.first == 0 ? p.begin : std::min(p.end, sd.start(p.first));
  return p;
}

// Calls f(segment, lo, hi) for every piece of `p`: its head first, then each segment starting in
// it (clipped at p.end; empty segments give lo == hi).
template <class F>
void for_each_piece(const SegView& sd, const Part& p, F&& f) {
  if (p.has_head()) f(p.first - 1, p.begin, p.head_end);
  for (std::size_t k = p.first; k < p.last; ++k)
    f(k, sd.start(k), std::min(sd.start(k + 1), p.end));
}

// Runs body(part) for each thread's share of a segmented loop of sd.total elements.
template <class Body>
void for_each_part(const Parallel& par, const SegView& sd, std::size_t threshold, Body&& body) {
  int team = par.team_for(sd.total, threshold);
  if (team <= 1) {
    body(whole_part(sd));
    return;
  }
#pragma omp parallel num_threads(team)
  body(make_part(sd, omp_get_thread_num(), omp_get_num_threads()));
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
#pragma omp critical(cvl_cpu_index_fault)
    if (other.position < position) *this = other;
  }
};

}  // namespace cvl::cpu
