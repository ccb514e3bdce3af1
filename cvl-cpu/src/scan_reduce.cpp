// Segmented exclusive scans and reductions (spec/CVL.md §3.2-3.3). Every segment is combined
// strictly left to right from the identity, as the reference does, unless threads split it:
// with more than one thread the elements are cut into equal blocks whatever the segment sizes
// (parallel.hpp's Part), and a segment cut by a block boundary is finished from per-block
// partial results. That reassociates its combination: still exact for INT and BOOL, and for
// FLOAT MAX/MIN unless a cut segment holds a NaN (then the op runs sequentially); within rounding
// for FLOAT + and *. Segments inside one block give exactly the sequential result.
#include <atomic>
#include <bit>
#include <limits>
#include <type_traits>
#include <vector>

#include "families.hpp"
#include "combine.hpp"

namespace cvl::cpu {
namespace {

template <class C, class T = typename C::value_type>
T fold(const T* in, std::size_t lo, std::size_t hi, T acc) {
  for (std::size_t i = lo; i < hi; ++i) acc = C::apply(acc, in[i]);
  return acc;
}

// For the pieces of cut segments: their FLOAT + and * are reassociated anyway, so they use four
// running partial results instead of one and the additions no longer wait on each other.
// Everything else folds in order.
template <class C, class T = typename C::value_type>
T fold_threaded(const T* in, std::size_t lo, std::size_t hi, T acc) {
  if constexpr (kRegroupingRounds<C>) {
    T part[4] = {C::identity, C::identity, C::identity, C::identity};
    std::size_t i = lo;
    for (; i + 4 <= hi; i += 4)
      for (std::size_t lane = 0; lane < 4; ++lane) part[lane] = C::apply(part[lane], in[i + lane]);
    for (; i < hi; ++i) part[0] = C::apply(part[0], in[i]);
    return C::apply(acc, C::apply(C::apply(part[0], part[1]), C::apply(part[2], part[3])));
  } else {
    return fold<C>(in, lo, hi, acc);
  }
}

// Exclusive scan of [lo, hi) from `acc`; reads in[i] before writing out[i], so in may be out.
template <class C, class T = typename C::value_type>
void scan_range(const T* in, T* out, std::size_t lo, std::size_t hi, T acc) {
  for (std::size_t i = lo; i < hi; ++i) {
    T x = in[i];
    out[i] = acc;
    acc = C::apply(acc, x);
  }
}

// Folds a piece of a segment cut by block boundaries, noting in `inexact` whether the blocked
// result may differ from the sequential one beyond rounding: for FLOAT MAX/MIN when the piece
// holds a NaN (max(s, NaN) = NaN but max(NaN, x) = x, so grouping matters).
template <class C, class T = typename C::value_type>
T fold_cut(const T* in, std::size_t lo, std::size_t hi, T acc, std::atomic<bool>& inexact) {
  if constexpr (kNanSensitive<C>) {
    // On the bits, which vectorizes: |x| + (2^52 - 1) carries into the sign bit exactly when
    // |x| is above the pattern of infinity, that is for a NaN.
    std::uint64_t carries = 0;
    for (std::size_t i = lo; i < hi; ++i)
      carries |= (std::bit_cast<std::uint64_t>(in[i]) & 0x7FFF'FFFF'FFFF'FFFFull) +
                 0x000F'FFFF'FFFF'FFFFull;
    if (carries >> 63) inexact.store(true, std::memory_order_relaxed);
  }
  return fold_threaded<C>(in, lo, hi, acc);
}

template <class C, class T = typename C::value_type>
void scan_sequential(const T* in, T* out, const SegView& sd) {
  for (std::size_t k = 0; k < sd.segments; ++k)
    scan_range<C>(in, out, sd.start(k), sd.start(k + 1), C::identity);
}

template <class C, class T = typename C::value_type>
void reduce_sequential(const T* in, T* result, const SegView& sd) {
  for (std::size_t k = 0; k < sd.segments; ++k)
    result[k] = fold<C>(in, sd.start(k), sd.start(k + 1), C::identity);
}

template <class C>
Vector scan_typed(const Parallel& par, Vector v, const SegView& sd) {
  using T = typename C::value_type;
  const std::size_t n = v.length;
  const T* in = elements<T>(v);
  Vector out = reuse_or_allocate(std::move(v), type_of<T>(), n);
  T* o = elements<T>(out);
  const int team = par.team_for(n, kMemoryBoundThreshold);
  if (team <= 1) {
    scan_sequential<C>(in, o, sd);
    return out;
  }
  // Pass 1: each block combines the part of its last segment that lies in it ("tail"); the
  // carries into each block follow sequentially. Pass 2: each block scans from its carry.
  // Pass 1 only reads, so when it finds the blocked result inexact the input (which may be the
  // output's memory) is still intact for a sequential scan.
  auto slots = static_cast<std::size_t>(team);
  std::vector<T> tail(slots), carry(slots);
  std::vector<std::uint8_t> segment_starts(slots);
  std::atomic<bool> inexact{false};
#pragma omp parallel num_threads(team)
  {
    int t = omp_get_thread_num(), size = omp_get_num_threads();
    auto self = static_cast<std::size_t>(t);
    Part p = make_part(sd, t, size);
    if (t + 1 < size) {
      bool started = p.last > p.first;
      const std::size_t from = started ? sd.start(p.last - 1) : p.begin;
      tail[self] = fold_cut<C>(in, from, p.end, C::identity, inexact);
      segment_starts[self] = started;
    }
#pragma omp barrier
#pragma omp single
    {
      carry[0] = C::identity;
      for (std::size_t i = 1; i < static_cast<std::size_t>(size); ++i)
        carry[i] = segment_starts[i - 1] ? tail[i - 1] : C::apply(carry[i - 1], tail[i - 1]);
    }
    if (!inexact.load(std::memory_order_relaxed)) {
      for_each_piece(sd, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
        bool is_head = p.has_head() && k + 1 == p.first;
        scan_range<C>(in, o, lo, hi, is_head ? carry[self] : C::identity);
      });
    }
  }
  if (inexact.load()) scan_sequential<C>(in, o, sd);
  return out;
}

template <class C>
Vector reduce_typed(const Parallel& par, const Vector& v, const SegView& sd) {
  using T = typename C::value_type;
  const T* in = elements<T>(v);
  Vector out = allocate(type_of<T>(), sd.segments);
  T* result = elements<T>(out);
  const int team = par.team_for(v.length, kMemoryBoundThreshold);
  if (team <= 1) {
    reduce_sequential<C>(in, result, sd);
    return out;
  }
  // Each block reduces the segments starting in it (up to its end); the heads (continuations of
  // a segment begun in an earlier block) are appended afterwards in block order.
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  auto slots = static_cast<std::size_t>(team);
  std::vector<T> head(slots);
  std::vector<std::size_t> head_segment(slots, none);
  std::atomic<bool> inexact{false};
#pragma omp parallel num_threads(team)
  {
    auto self = static_cast<std::size_t>(omp_get_thread_num());
    Part p = make_part(sd, omp_get_thread_num(), omp_get_num_threads());
    if (p.has_head()) {
      head[self] = fold_cut<C>(in, p.begin, p.head_end, C::identity, inexact);
      head_segment[self] = p.first - 1;
    }
    for (std::size_t k = p.first; k < p.last; ++k) {
      result[k] = sd.start(k + 1) <= p.end  // the whole segment is in this block
                      ? fold<C>(in, sd.start(k), sd.start(k + 1), C::identity)
                      : fold_cut<C>(in, sd.start(k), p.end, C::identity, inexact);
    }
  }
  if (inexact.load()) {
    reduce_sequential<C>(in, result, sd);
    return out;
  }
  for (std::size_t t = 1; t < slots; ++t)
    if (head_segment[t] != none)
      result[head_segment[t]] = C::apply(result[head_segment[t]], head[t]);
  return out;
}

}  // namespace

Vector scan(const Context& ctx, vcode::Op op, Vector v, const SegView& sd) {
  Type type = v.type;
  return with_combine(op, type,
                      [&]<class C>() { return scan_typed<C>(ctx.par, std::move(v), sd); });
}

Vector reduce(const Context& ctx, vcode::Op op, Vector v, const SegView& sd) {
  return with_combine(op, v.type, [&]<class C>() { return reduce_typed<C>(ctx.par, v, sd); });
}

}  // namespace cvl::cpu
