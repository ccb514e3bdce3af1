// Scans and reductions: each process folds its pieces with the local CVL; a segment that crosses
// blocks is completed with the partial results of the processes it crosses (gathered from all,
// combined in segment order).
#include "backend.hpp"
#include "cvl/op_dispatch.hpp"

namespace cvl::mpi {
namespace {

// A process's part of the segments that cross its borders.
template <class H>
struct BorderPart {
  H value;                // scan: the fold of the last piece; reduce: the fold of the first
  std::uint8_t nonempty;  // the block holds elements
  std::uint8_t continues;
  std::uint8_t whole;     // the block is one piece of a segment that starts earlier
};

}  // namespace

Vector MpiBackend::scan(vcode::Op op, Vector v, const Segdes& sd) {
  Operation guard(*this);
  const DistributedSegdes& d = parts(sd);
  const std::size_t n = v.length.get();
  const Type type = v.type;
  Vector local = take_local(std::move(v));
  const std::size_t m = local.length.get();
  return visit_combiner(op, type, [&]<vcode::Op kOp, class Sem, Type kType>() -> Vector {
    using H = host_t<kType>;
    H last{};
    if (m > 0) local_->download(local, m - 1, 1, &last);
    Vector scanned = local_->scan(op, std::move(local), d.local);
    H tail = Sem::identity(H{});
    if (m > 0) {
      H before_last{};
      local_->download(scanned, m - 1, 1, &before_last);
      tail = Sem::apply(before_last, last);
    }
    const bool whole = d.continues && d.pieces() == 1;
    const auto all = comm_.allgather(BorderPart<H>{tail, m > 0, d.continues, whole});
    if (!d.continues) return wrap(std::move(scanned), n);
    // The carry into the first piece: the folds of the earlier processes this segment crosses,
    // in order.
    std::vector<int> crossed;
    for (int q = comm_.rank() - 1; q >= 0; --q) {
      if (!all[q].nonempty) continue;
      crossed.push_back(q);
      if (!all[q].whole) break;
    }
    H carry = all[crossed.back()].value;
    for (auto it = crossed.rbegin() + 1; it != crossed.rend(); ++it)
      carry = Sem::apply(carry, all[*it].value);
    std::vector<H> values = host<H>(scanned);
    for (std::int32_t j = 0; j < d.piece_lengths[0]; ++j) values[j] = Sem::apply(carry, values[j]);
    return wrap(from_host(type, values), n);
  });
}

Vector MpiBackend::reduce(vcode::Op op, Vector v, const Segdes& sd) {
  Operation guard(*this);
  const DistributedSegdes& d = parts(sd);
  const std::size_t segments = sd.segments.get();
  const Type type = v.type;
  Vector local = take_local(std::move(v));
  const std::size_t m = local.length.get();
  return visit_combiner(op, type, [&]<vcode::Op kOp, class Sem, Type kType>() -> Vector {
    using H = host_t<kType>;
    std::vector<H> folds = host<H>(local_->reduce(op, std::move(local), d.local));
    const bool whole = d.continues && d.pieces() == 1;
    const H first = d.continues ? folds[0] : Sem::identity(H{});
    const auto all = comm_.allgather(BorderPart<H>{first, m > 0, d.continues, whole});
    // This process's last segment, if it owns it, takes the parts later processes hold.
    if (d.pieces() > d.owned_begin()) {
      for (int q = comm_.rank() + 1; q < comm_.size(); ++q) {
        if (!all[q].nonempty) continue;
        if (!all[q].continues) break;
        folds.back() = Sem::apply(folds.back(), all[q].value);
        if (!all[q].whole) break;
      }
    }
    std::vector<H> owned(folds.begin() + d.owned_begin(), folds.end());
    const Range have{d.first_segment + d.owned_begin(), d.first_segment + d.pieces()};
    return wrap(from_host(type, remap(comm_, owned, have, block(segments))), segments);
  });
}

}  // namespace cvl::mpi
