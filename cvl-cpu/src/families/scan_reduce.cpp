// Segmented exclusive scans and reductions (spec/CVL.md §3.2-3.3) of a vector: the fold of
// segmented_fold.hpp, which FUSED uses too, over the vector's elements. Every segment is combined
// strictly left to right from the identity, as the reference does, unless threads split it (see
// segmented_fold.hpp for how a cut segment is finished, and when that is exact).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "families/families.hpp"
#include "families/combine.hpp"
#include "families/segmented_fold.hpp"

namespace cvl::cpu {
namespace {

template <class C>
Vector scan_typed(const Parallel& par, Vector v, const SegmentView& sd) {
  using T = typename C::value_type;
  const std::size_t n = v.length;
  VectorValues<T> in{elements<T>(v)};
  Vector out = reuse_or_allocate(std::move(v), type_of<T>(), n);
  T* o = elements<T>(out);
  const int team = kRegroupingRounds<C> ? par.fixed_team_for(n, kMemoryBoundThreshold)
                                        : par.team_for(n, kMemoryBoundThreshold);
  if (team <= 1) {
    scan_sequential<C>(in, o, sd);
    return out;
  }
  // Pass 1: each part folds the piece of its last segment that lies in it ("tail"); the carries
  // into each part follow sequentially. Pass 2: each part scans from its carry. Pass 1 only
  // reads, so when it finds the parted result inexact the input (which may be the output's
  // memory) is still intact for a sequential scan.
  const std::size_t blocks = blocks_for_team(team);
  std::vector<T> tail(blocks), carry(blocks);
  std::vector<std::uint8_t> segment_starts(blocks);
  std::atomic<bool> inexact{false};
  run_blocks(team, blocks, [&](std::size_t b) {
    if (b + 1 == blocks) return;
    const Part p = make_part(sd, b, blocks);
    const bool started = p.last > p.first;
    const std::size_t from = started ? sd.start(p.last - 1) : p.begin;
    tail[b] = fold_cut_piece<C>(in.data, from, p.end, inexact);
    segment_starts[b] = started;
  });
  if (!inexact.load()) {
    carry[0] = C::identity;
    for (std::size_t b = 1; b < blocks; ++b)
      carry[b] = segment_starts[b - 1] ? tail[b - 1] : C::apply(carry[b - 1], tail[b - 1]);
    run_blocks(team, blocks, [&](std::size_t b) {
      const Part p = make_part(sd, b, blocks);
      for_each_piece(sd, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
        const bool is_head = p.has_head() && k + 1 == p.first;
        scan_range<C>(in.data, o, lo, hi, is_head ? carry[b] : C::identity);
      });
    });
  }
  if (inexact.load()) scan_sequential<C>(in, o, sd);
  return out;
}

// A reduction of a vector of one value `x` (uniform_bits), without reading it, where the result
// is exact: an INT sum is x times the segment's length (wrapping, as the sequential sum does);
// an INT or BOOL maximum, minimum, AND or OR is x; an empty segment gets the identity. Others
// (FLOAT sums round at each step) return nullopt and fold the elements.
template <class C>
std::optional<Vector> reduce_of_value(const Parallel& par, const Vector& v, const SegmentView& sd) {
  using T = typename C::value_type;
  using Sem = typename C::semantics;
  constexpr bool sum = std::is_same_v<Sem, cvl_sem::Add>;
  constexpr bool idempotent =
      std::is_same_v<Sem, cvl_sem::Max> || std::is_same_v<Sem, cvl_sem::Min> ||
      std::is_same_v<Sem, cvl_sem::And> || std::is_same_v<Sem, cvl_sem::Or>;
  if constexpr (!std::is_integral_v<T> || !(sum || idempotent)) {
    return std::nullopt;
  } else {
    const std::optional<std::uint64_t> bits = uniform_bits(v);
    if (!bits) return std::nullopt;
    T x;
    std::memcpy(&x, &*bits, sizeof(T));
    Vector out = allocate(type_of<T>(), sd.segments);
    T* o = elements<T>(out);
    parallel_for(par, sd.segments, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k) {
        const std::size_t length = sd.length(k);
        if constexpr (sum)
          o[k] = static_cast<T>(static_cast<std::uint32_t>(x) * static_cast<std::uint32_t>(length));
        else
          o[k] = length == 0 ? C::identity : x;
      }
    });
    return out;
  }
}

template <class C>
Vector reduce_typed(const Parallel& par, const Vector& v, const SegmentView& sd,
                    bool* first_held_nan) {
  using T = typename C::value_type;
  if (std::optional<Vector> out = reduce_of_value<C>(par, v, sd)) return std::move(*out);
  Vector out = allocate(type_of<T>(), sd.segments);
  reduce_segments<C>(
      par, sd, elements<T>(out),
      [&](auto&& fold) {
        VectorValues<T> in{elements<T>(v)};
        fold(in);
      },
      kNanSensitive<C> ? first_held_nan : nullptr);
  return out;
}

// +_REDUCE INT of the lengths of a wide descriptor `inner` by segments `outer` of them, from its
// 64-bit offsets: each sum wrapped as an INT sum is, and a sum past an INT recorded
// (Buffer::wrapped_count), so that a descriptor made of it is refused as the count it is.
std::optional<Vector> sums_of_wide_lengths(const Parallel& par, const WideSegmentView& inner,
                                           const SegmentView& outer) {
  if (outer.total != inner.segments) return std::nullopt;
  Vector out = allocate(Type::Int, outer.segments);
  std::int32_t* o = elements<std::int32_t>(out);
  std::mutex mutex;
  std::uint64_t largest = 0;
  parallel_for(par, outer.segments, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
    std::uint64_t mine = 0;
    for (std::size_t k = lo; k < hi; ++k) {
      const auto sum = static_cast<std::uint64_t>(inner.offsets[outer.start(k + 1)] - inner.offsets[outer.start(k)]);
      o[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
      mine = std::max(mine, sum);
    }
    std::lock_guard lock(mutex);
    largest = std::max(largest, mine);
  });
  if (largest > kMaxVectorLength) static_cast<Buffer*>(out.storage.get())->set_wrapped_count(largest);
  return out;
}

// +_SCAN and +_REDUCE INT of the lengths of a descriptor `inner` (LENGTHS: lengths_descriptor)
// by segments `outer` of them: the prefix sums are inner's offsets, so a segment's sum is the
// difference of two and a scan's element that of its offset and its segment's first; the
// lengths are never read (nor written, when nothing else reads them). Exact: the offsets are
// the lengths' running sum, which stays below 2^31.
std::optional<Vector> sums_of_lengths(const Parallel& par, vcode::Op op, const Vector& v,
                                      const SegmentView& outer) {
  const Segdes* descriptor = v.type == Type::Int ? lengths_descriptor(v) : nullptr;
  if (!descriptor || (op != vcode::Op::PlusScan && op != vcode::Op::PlusReduce)) return std::nullopt;
  if (is_wide(*descriptor)) {
    if (op == vcode::Op::PlusReduce) return sums_of_wide_lengths(par, wide_view(*descriptor), outer);
    return std::nullopt;  // a wide descriptor's lengths are scanned as INTs (wrapping)
  }
  const SegmentView inner = view(*descriptor);
  if (outer.total != inner.segments) return std::nullopt;
  const SegOffset* offsets = inner.offsets;
  if (op == vcode::Op::PlusReduce) {
    Vector out = allocate(Type::Int, outer.segments);
    std::int32_t* o = elements<std::int32_t>(out);
    parallel_for(par, outer.segments, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k)
        o[k] = static_cast<std::int32_t>(offsets[outer.start(k + 1)] - offsets[outer.start(k)]);
    });
    return out;
  }
  Vector out = allocate(Type::Int, inner.segments);
  std::int32_t* o = elements<std::int32_t>(out);
  for_each_part(par, outer, kMemoryBoundThreshold, [&](const Part& p, std::size_t) {
    for_each_piece(outer, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      const SegOffset first = offsets[outer.start(k)];
      for (std::size_t j = lo; j < hi; ++j) o[j] = static_cast<std::int32_t>(offsets[j] - first);
    });
  });
  return out;
}

}  // namespace

Vector scan(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd) {
  if (std::optional<Vector> out = sums_of_lengths(ctx.par, op, v, sd)) return std::move(*out);
  Type type = v.type;
  return with_combine(op, type,
                      [&]<class C>() { return scan_typed<C>(ctx.par, std::move(v), sd); });
}

Vector reduce(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd,
              bool* first_held_nan) {
  if (std::optional<Vector> out = sums_of_lengths(ctx.par, op, v, sd)) return std::move(*out);
  return with_combine(op, v.type,
                      [&]<class C>() { return reduce_typed<C>(ctx.par, v, sd, first_held_nan); });
}

}  // namespace cvl::cpu
