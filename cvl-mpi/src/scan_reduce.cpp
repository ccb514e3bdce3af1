// Scans and reductions: each process folds its pieces with the local CVL; a segment that crosses
// blocks is completed with the partial folds of the processes it crosses (gathered from all,
// combined in segment order).
//
// FLOAT MAX and MIN are not associative where NaNs are: partial folds travel with whether their
// part held a NaN, and continue by cvl::continue_fold (cvl/nan_fold.hpp).
#include <algorithm>
#include <cmath>
#include <span>

#include "backend.hpp"
#include "borders.hpp"
#include "cvl/nan_fold.hpp"
#include "cvl/op_dispatch.hpp"
#include "cvl_cpu/cvl_cpu.hpp"

namespace cvl::mpi {
namespace {

template <class H>
bool any_nan(std::span<const H> values) {
  if constexpr (std::is_floating_point_v<H>)
    return std::any_of(values.begin(), values.end(), [](H x) { return std::isnan(x); });
  return false;
}

}  // namespace

Vector MpiBackend::scan(vcode::Op op, Vector v, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t n = v.length.get();
  refuse_stored(n);
  if (!stored(sd).crosses) return wrap(local_->scan(op, take_local(std::move(v)), stored(sd).local), n);
  const DistributedSegdes& d = parts(sd);
  const Type type = v.type;
  Vector local = take_local(std::move(v));
  const std::size_t m = local.length.get();
  return visit_combiner(op, type, [&]<vcode::Op kOp, class Sem, Type kType>() -> Vector {
    using H = host_t<kType>;
    constexpr bool nan_resets = nan_resets_fold<Sem, H>;
    const std::vector<H> input = nan_resets ? host<H>(local) : std::vector<H>();
    H last{};
    if (m > 0) local_->download(local, m - 1, 1, &last);
    Vector scanned = local_->scan(op, std::move(local), d.local);
    H tail = Sem::identity(H{});
    bool tail_has_nan = false;
    if (m > 0) {
      H before_last{};
      local_->download(scanned, m - 1, 1, &before_last);
      tail = Sem::apply(before_last, last);
      if constexpr (nan_resets)
        tail_has_nan = any_nan<H>(std::span<const H>(input).subspan(m - d.piece_lengths.back()));
    }
    // Each process tells the fold of its last piece.
    const auto all = comm_.allgather(BorderPart<H>::of(d, m, tail, tail_has_nan));
    if (!d.continues) return wrap(std::move(scanned), n);
    // The fold of the segment before this block: the earlier processes it crosses, in order.
    const std::vector<int> before = holders_before(all, comm_.rank());
    H carry = all[before.front()].value;
    for (auto q = before.begin() + 1; q != before.end(); ++q)
      carry = continue_fold<Sem>(carry, all[*q].value, all[*q].has_nan);
    std::vector<H> values = host<H>(scanned);
    bool prefix_has_nan = false;
    for (std::int32_t j = 0; j < d.piece_lengths[0]; ++j) {
      if constexpr (nan_resets) {
        // values[j] folds elements before j of this piece alone: a NaN among them resets.
        if (!prefix_has_nan) values[j] = j == 0 ? carry : continue_fold<Sem>(carry, values[j], false);
        prefix_has_nan = prefix_has_nan || std::isnan(input[j]);
      } else {
        values[j] = Sem::apply(carry, values[j]);
      }
    }
    return wrap(from_host(type, values), n);
  });
}

Vector MpiBackend::reduce(vcode::Op op, Vector v, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t segments = sd.segments.get();
  // Past the longest vector the local CVL refuses a block it would store (a pending result that
  // is read again and not cheap to make again), maybe on some processes only: they agree.
  const bool streamed = v.length.get() > kMaxVectorLength;
  // `first_held_nan`, where given: whether the first piece held a NaN (cvl_cpu.hpp).
  auto local_reduce = [&](vcode::Op fold, Vector values, const Segdes& pieces,
                          bool* first_held_nan) {
    auto run = [&] {
      if (first_held_nan)
        return reduce_noting_first_nan(*local_, fold, std::move(values), pieces, *first_held_nan);
      return local_->reduce(fold, std::move(values), pieces);
    };
    return streamed ? agreed(run) : run();
  };
  if (const DistributedSegdes* a = aligned_parts(sd))  // each fold lands in its segment's block
    return wrap(local_reduce(op, take_local(std::move(v)), a->local, nullptr), segments);
  const DistributedSegdes& d = parts(sd);
  const Type type = v.type;
  Vector local = take_local(std::move(v));
  const std::size_t m = local.length.get();
  return visit_combiner(op, type, [&]<vcode::Op kOp, class Sem, Type kType>() -> Vector {
    using H = host_t<kType>;
    // Whether the first piece held a NaN comes with the folds, from the one pass over the block
    // (which may be values that are never stored).
    bool first_has_nan = false;
    bool* note = nan_resets_fold<Sem, H> && d.continues ? &first_has_nan : nullptr;
    std::vector<H> folds = host<H>(local_reduce(op, std::move(local), d.local, note));
    if (d.crosses) {
      // Each process tells the fold of its first piece; this process's last segment, if it owns
      // it, takes the parts later processes hold.
      const H first = d.continues ? folds[0] : Sem::identity(H{});
      const auto all = comm_.allgather(BorderPart<H>::of(d, m, first, first_has_nan));
      for (int q : holders_after(all, comm_.rank(), d))
        folds.back() = continue_fold<Sem>(folds.back(), all[q].value, all[q].has_nan);
    }
    return wrap(from_host(type, owned_to_segment_blocks(folds, d, segments)), segments);
  });
}

}  // namespace cvl::mpi
