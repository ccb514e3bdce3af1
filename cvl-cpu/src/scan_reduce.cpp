// Segmented exclusive scans and reductions (spec/CVL.md §3.2-3.3). With one thread every segment
// is combined strictly left to right from the identity, as the reference does. With more, the
// elements are split into equal blocks whatever the segment sizes (parallel.hpp's Part); a segment
// cut by a block boundary is finished with per-block partial results, which reassociates the
// combination: exact for INT and BOOL and for FLOAT MAX/MIN without NaN (with a NaN those run
// sequentially), within rounding for FLOAT + and *.
#include <limits>
#include <type_traits>
#include <vector>

#include "families.hpp"
#include "scalar_ops.hpp"

namespace cvl::cpu {
namespace {

template <class C, class T = typename C::value_type>
T fold(const T* in, std::size_t lo, std::size_t hi, T acc) {
  for (std::size_t i = lo; i < hi; ++i) acc = C::apply(acc, in[i]);
  return acc;
}

// FLOAT + and * in threaded runs are reassociated anyway (see the top of the file), so there
// they use four running partial results instead of one: the additions no longer wait on each
// other. Everything else folds in order.
template <class C, class T = typename C::value_type>
T fold_threaded(const T* in, std::size_t lo, std::size_t hi, T acc) {
  constexpr bool sum_or_product = std::is_floating_point_v<T> &&
                                  (std::is_same_v<C, Plus<T>> || std::is_same_v<C, Times<T>>);
  if constexpr (sum_or_product) {
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

template <class C>
int team_size(const Parallel& par, const typename C::value_type* in, std::size_t n) {
  int team = par.team_for(n, kMemoryBoundThreshold);
  if constexpr (kNanSensitive<C>) {
    if (team > 1 && parallel_any(par, n, kMemoryBoundThreshold,
                                 [in](std::size_t i) { return in[i] != in[i]; }))
      return 1;
  }
  return team;
}

template <class C>
Vector scan_typed(const Parallel& par, Vector v, const SegView& sd) {
  using T = typename C::value_type;
  const std::size_t n = v.length;
  const T* in = elements<T>(v);
  Vector out = reuse_or_allocate(std::move(v), type_of<T>(), n);
  T* o = elements<T>(out);
  const int team = team_size<C>(par, in, n);
  if (team <= 1) {
    for (std::size_t k = 0; k < sd.segments; ++k)
      scan_range<C>(in, o, sd.start(k), sd.start(k + 1), C::identity);
    return out;
  }
  // Pass 1: each block combines the part of its last segment that lies in it ("tail"); the
  // carries into each block follow sequentially. Pass 2: each block scans from its carry.
  auto slots = static_cast<std::size_t>(team);
  std::vector<T> tail(slots), carry(slots);
  std::vector<std::uint8_t> segment_starts(slots);
#pragma omp parallel num_threads(team)
  {
    int t = omp_get_thread_num(), size = omp_get_num_threads();
    auto self = static_cast<std::size_t>(t);
    Part p = make_part(sd, t, size);
    if (t + 1 < size) {
      bool started = p.last > p.first;
      const std::size_t from = started ? sd.start(p.last - 1) : p.begin;
      tail[self] = fold_threaded<C>(in, from, p.end, C::identity);
      segment_starts[self] = started;
    }
#pragma omp barrier
#pragma omp single
    {
      carry[0] = C::identity;
      for (std::size_t i = 1; i < static_cast<std::size_t>(size); ++i)
        carry[i] = segment_starts[i - 1] ? tail[i - 1] : C::apply(carry[i - 1], tail[i - 1]);
    }
    for_each_piece(sd, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      bool is_head = p.has_head() && k + 1 == p.first;
      scan_range<C>(in, o, lo, hi, is_head ? carry[self] : C::identity);
    });
  }
  return out;
}

template <class C>
Vector reduce_typed(const Parallel& par, const Vector& v, const SegView& sd) {
  using T = typename C::value_type;
  const std::size_t m = sd.segments;
  const T* in = elements<T>(v);
  Vector out = allocate(type_of<T>(), m);
  T* result = elements<T>(out);
  const int team = team_size<C>(par, in, v.length);
  if (team <= 1) {
    for (std::size_t k = 0; k < m; ++k)
      result[k] = fold<C>(in, sd.start(k), sd.start(k + 1), C::identity);
    return out;
  }
  // Each block reduces the segments starting in it (up to its end); the heads (continuations of
  // a segment begun in an earlier block) are appended afterwards in block order.
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  auto slots = static_cast<std::size_t>(team);
  std::vector<T> head(slots);
  std::vector<std::size_t> head_segment(slots, none);
#pragma omp parallel num_threads(team)
  {
    auto self = static_cast<std::size_t>(omp_get_thread_num());
    Part p = make_part(sd, omp_get_thread_num(), omp_get_num_threads());
    if (p.has_head()) {
      head[self] = fold_threaded<C>(in, p.begin, p.head_end, C::identity);
      head_segment[self] = p.first - 1;
    }
    for (std::size_t k = p.first; k < p.last; ++k)
      result[k] = fold_threaded<C>(in, sd.start(k), std::min(sd.start(k + 1), p.end), C::identity);
  }
  for (std::size_t t = 1; t < slots; ++t)
    if (head_segment[t] != none)
      result[head_segment[t]] = C::apply(result[head_segment[t]], head[t]);
  return out;
}

}  // namespace

Vector scan(const Context& ctx, vcode::Op op, Vector v, const SegView& sd) {
  Type type = v.type;
  return with_combine(op, type, [&]<class C>() { return scan_typed<C>(ctx.par, std::move(v), sd); });
}

Vector reduce(const Context& ctx, vcode::Op op, Vector v, const SegView& sd) {
  return with_combine(op, v.type, [&]<class C>() { return reduce_typed<C>(ctx.par, v, sd); });
}

}  // namespace cvl::cpu
