// The permute family: each element's global target (a scatter) or source (a gather) position is
// worked out where the element is, checked against its segment, and the values travel to or from
// the process whose block holds that position.
#include <algorithm>
#include <cstring>

#include "backend.hpp"
#include "cvl/errors.hpp"
#include "vcode/op.hpp"

namespace cvl::mpi {
namespace {

// Where a segment starts, and its length.
struct SegmentPlace {
  std::int64_t start;
  std::int32_t length;
};

// positions[j] = start + idx[j] for j in [lo, hi), kNoPosition where unflagged (`flags` null: every
// element is flagged); false where some flagged index is outside [0, length). No branch per
// element, and flags widened by arithmetic: both loops vectorize.
bool place_piece(const std::int32_t* idx, const std::uint8_t* flags, std::size_t lo, std::size_t hi,
                 std::int64_t start, std::uint32_t length, std::uint32_t* positions) {
  static_assert(kNoPosition == UINT32_MAX);
  const auto base = static_cast<std::uint32_t>(start);
  std::uint32_t bad = 0;
  if (!flags) {
    for (std::size_t j = lo; j < hi; ++j) {
      const auto at = static_cast<std::uint32_t>(idx[j]);  // a negative index is huge
      bad |= at >= length ? 1u : 0u;
      positions[j] = base + at;
    }
  } else {
    for (std::size_t j = lo; j < hi; ++j) {
      const auto at = static_cast<std::uint32_t>(idx[j]);
      const std::uint32_t used = flags[j] != 0 ? 1u : 0u;
      bad |= used & (at >= length ? 1u : 0u);
      positions[j] = (base + at) | (used - 1u);  // all ones where unflagged
    }
  }
  return bad == 0;
}

}  // namespace

// The operands' blocks and the descriptors' local pieces, for the local CVL: copies of the
// handles, so that `o` stays whole for a general path.
PermuteOperands MpiBackend::local_operands(vcode::Op op, const PermuteOperands& o) {
  PermuteOperands l;
  l.values = local_of(o.values);
  l.indices = local_of(o.indices);
  if (o.flags.storage) l.flags = local_of(o.flags);
  if (o.defaults.storage) l.defaults = local_of(o.defaults);
  l.source_segdes = stored(o.source_segdes).local;
  if (op != vcode::Op::Permute) l.dest_segdes = stored(o.dest_segdes).local;
  return l;
}

// The same, moved out of `o` where it holds the only handle, so that the local CVL may reuse an
// operand's storage for the result.
PermuteOperands MpiBackend::take_local_operands(vcode::Op op, PermuteOperands&& o) {
  PermuteOperands l;
  l.values = take_local(std::move(o.values));
  l.indices = take_local(std::move(o.indices));
  if (o.flags.storage) l.flags = take_local(std::move(o.flags));
  if (o.defaults.storage) l.defaults = take_local(std::move(o.defaults));
  l.source_segdes = stored(o.source_segdes).local;
  if (op != vcode::Op::Permute) l.dest_segdes = stored(o.dest_segdes).local;
  return l;
}

// When no segment of either descriptor crosses a border and every process holds the same
// segments of both (known without asking where both are aligned), each element's position is on
// its own process: the local CVL permutes each block. An index outside its segment sends every
// process down the general path, which reports it with its global position.
std::optional<Vector> MpiBackend::permute_in_place(vcode::Op op, const PermuteOperands& o,
                                                   const DistributedSegdes& a,
                                                   const DistributedSegdes& t) {
  if (a.crosses || t.crosses) return std::nullopt;
  // Two aligned descriptors of as many segments hold the same ones everywhere: no need to ask.
  const bool known_same = a.aligned && t.aligned && a.lengths.length.get() == t.lengths.length.get();
  const bool same_segments = a.pieces() == t.pieces() && (a.pieces() == 0 || a.first_segment == t.first_segment);
  if (!known_same && comm_.sum_all(same_segments ? 0 : 1) != 0) return std::nullopt;
  std::optional<Vector> out;
  try {
    out = local_->permute(op, local_operands(op, o));
  } catch (const Error&) {
    out.reset();
  }
  if (comm_.sum_all(out ? 0 : 1) != 0) return std::nullopt;
  return out;
}

Vector MpiBackend::permute(vcode::Op op, PermuteOperands o) {
  Operation guard(*this);
  const bool gather = vcode::info(op).shape == vcode::Shape::Gather;
  const bool flagged = vcode::permute_has_flags(op);
  const Segdes& source = o.source_segdes;
  const Segdes& dest = op == vcode::Op::Permute ? o.source_segdes : o.dest_segdes;
  // The descriptor the index vector runs along, and the one its positions point into.
  const Segdes& along = gather ? dest : source;
  const Segdes& into = gather ? source : dest;
  refuse_stored(source.total.get());
  refuse_stored(dest.total.get());
  if (comm_.size() == 1) {  // every position is here, and the local CVL reports the global ones
    const std::size_t length = gather ? along.total.get() : into.total.get();
    return wrap(agreed([&] { return local_->permute(op, take_local_operands(op, std::move(o))); }), length);
  }
  if (auto read = permute_read_at(op, o)) return std::move(*read);
  const DistributedSegdes& a = parts(along);
  const DistributedSegdes& t = parts(into);
  const std::size_t segments = along.segments.get();
  const std::size_t into_total = into.total.get();
  const std::size_t first_element = block(along.total.get()).begin;
  const std::size_t result_length = gather ? along.total.get() : into_total;
  if (auto local = permute_in_place(op, o, a, t)) return wrap(std::move(*local), result_length);
  if (op == vcode::Op::BPermute && segments == 1 && into.segments.get() == 1)
    if (auto local = with_element_bits(o.values.type, [&]<class Bits>() {
          return gather_by_window<Bits>(o, into_total);
        }))
      return wrap(std::move(*local), result_length);

  // Per piece of `along`: where its segment of `into` starts, and how long it is (one exchange).
  std::vector<std::int64_t> fetched_start;
  std::vector<std::int32_t> fetched_length;
  if (&a != &t) {
    const std::vector<std::int64_t>& starts = t.segment_starts();
    std::vector<SegmentPlace> mine(starts.size());
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = {starts[i], t.my_lengths[i]};
    const std::vector<SegmentPlace> got = for_pieces(mine, segments, a);
    fetched_start.resize(got.size());
    fetched_length.resize(got.size());
    for (std::size_t k = 0; k < got.size(); ++k) fetched_start[k] = got[k].start, fetched_length[k] = got[k].length;
  }
  const std::vector<std::int64_t>& piece_start = &a == &t ? a.starts_of_pieces() : fetched_start;
  const std::vector<std::int32_t>& piece_length = &a == &t ? a.piece_segment_lengths : fetched_length;
  // Each element's global position (kNoPosition where unflagged), as the last permute by this
  // index found it, or worked out now. An index out of its segment: the exchange below carries
  // the error to every process.
  const std::size_t m = local_of(o.indices).length.get();
  std::optional<std::string> error;
  std::unique_ptr<PermuteRoute> failed;  // a route made for an operation that then failed
  if (!route_ || !route_->same(op, o, along, into)) {
    route_.reset();
    auto fresh = std::make_unique<PermuteRoute>(op, o, along, into);
    fresh->positions.emplace(scratch<std::uint32_t>(*local_, m));
    std::uint32_t* const positions = fresh->positions->data();
    const HostView<std::int32_t> idx(*local_, local_of(o.indices));
    std::optional<HostView<std::uint8_t>> flags;
    if (flagged) flags.emplace(*local_, local_of(o.flags));
    const std::uint8_t* const flag_data = flagged ? flags->span().data() : nullptr;
    std::size_t j = 0;
    error = error_of([&] {
      for (std::size_t k = 0; k < a.pieces(); ++k) {
        const auto length = static_cast<std::uint32_t>(piece_length[k]);
        const std::size_t end = j + static_cast<std::size_t>(a.piece_lengths[k]);
        if (!place_piece(idx.span().data(), flag_data, j, end, piece_start[k], length, positions)) {
          auto good = [&](std::size_t i) { return (flag_data && !flag_data[i]) || static_cast<std::uint32_t>(idx[i]) < length; };
          while (good(j)) ++j;  // to the first bad index
          throw Error(index_fault_message(vcode::spelling(op), idx[j], first_element + j,
                                          static_cast<std::size_t>(length)));
        }
        j = end;
      }
    });
    std::fill(positions + j, positions + m, kNoPosition);  // after an error
    // Kept for the next field; dropped after an error, which ends the operation.
    (error ? failed : route_) = std::move(fresh);
  }
  PermuteRoute& route = failed ? *failed : *route_;
  const std::span<const std::uint32_t> position_span(route.positions->data(), m);

  const Type type = o.values.type;
  return with_element_bits(type, [&]<class Bits>() {
    if (gather) {
      auto out = HostVector<Bits>::fresh(*local_, type, m);
      if (flagged) std::fill_n(out.data(), m, Bits{0});
      // A source no larger than what the requests and answers would carry is copied whole to
      // every process instead (one all-gather, no per-element routing). Every process decides
      // alike: the rule reads global lengths only.
      const std::size_t requests_per_process = along.total.get() / comm_.size() + 1;
      if (into_total * sizeof(Bits) <= requests_per_process * (sizeof(Bits) + 4)) {
        comm_.agree(error);
        std::vector<Bits> source(into_total);
        download(o.values, 0, into_total, source.data());
        for (std::size_t i = 0; i < m; ++i)
          if (position_span[i] != kNoPosition) out[i] = source[position_span[i]];
      } else {
        const HostView<Bits> values(*local_, local_of(o.values));
        fetch(comm_, *local_, values.span(), into_total, position_span, out.data(), error);
      }
      return wrap(std::move(out).finish(), along.total.get());
    }
    const HostView<Bits> values(*local_, local_of(o.values));
    auto target = scatter_target<Bits>(type, std::move(o.defaults), block(into_total).size(),
                                       flagged && !vcode::permute_has_defaults(op));
    if (!route.plan) route.plan = plan_scatter(comm_, position_span, into_total);
    scatter(comm_, *local_, *route.plan, position_span, values.span(), into_total, target.data(), error);
    return wrap(std::move(target).finish(), into_total);
  });
}

// A BPERMUTE of one segment from one segment (bh's slices, and its reads of short sources): each
// process finds the range of source positions its block of the index reads (one pass over it),
// the ranges are gathered (one all-gather, which also tells whether any index is outside the
// source), each process whose range is not inside its own block of the source receives the
// source elements of its range (one exchange, none if no process needs one) and the local CVL
// gathers from them, or from its block in place. Nothing when an index is bad (the general path
// reports it), or when some range to receive is so much larger than its block that asking for
// each position moves fewer bytes (many processes reading all of a long source).
template <class Bits>
std::optional<Vector> MpiBackend::gather_by_window(const PermuteOperands& o, std::size_t into_total) {
  const Vector& idx = local_of(o.indices);
  const std::size_t m = idx.length.get();
  // What this process reads, as the last gather by this index found it (bh reads many fields by
  // one index), or found now.
  if (!window_ || window_->indices.lock() != o.indices.storage || window_->source_length != into_total) {
    window_.reset();
    auto fresh = std::make_unique<GatherWindow>();
    fresh->indices = o.indices.storage;
    fresh->source_length = into_total;
    GatherWindow::Bounds& w = fresh->bounds;
    w.reads = m;
    fresh->rebased = idx;
    fresh->along = one_segment(m);
    if (m > 0) {
      const HostView<std::int32_t> at(*local_, idx);
      std::int32_t lowest = at[0], highest = at[0];
      for (const std::int32_t i : at.span()) lowest = std::min(lowest, i), highest = std::max(highest, i);
      if (lowest < 0 || static_cast<std::size_t>(highest) >= into_total) {
        w.bad = 1;
      } else {
        w.begin = static_cast<std::uint64_t>(lowest);
        w.end = static_cast<std::uint64_t>(highest) + 1;
      }
    }
    const Range own = block(into_total);
    w.in_block = !w.bad && (m == 0 || (w.begin >= own.begin && w.end <= own.end)) ? 1 : 0;
    // The index rebased to the window, or to this process's block where the window is in it.
    const std::uint64_t base = w.in_block ? own.begin : w.begin;
    if (base != 0 && m > 0) {
      const std::vector<std::int32_t> first{static_cast<std::int32_t>(base)};
      Vector operands[2] = {idx, local_->distribute(from_host(Type::Int, first), fresh->along)};
      fresh->rebased = local_->elementwise(vcode::Op::Sub, Type::Int, operands);
    }
    fresh->window_segdes = one_segment(w.bad ? 0 : w.in_block ? own.size() : w.end - w.begin);
    window_ = std::move(fresh);
  }
  const std::vector<GatherWindow::Bounds> all = comm_.allgather(window_->bounds);
  std::vector<Range> windows(all.size());  // what each process receives: nothing if in its block
  bool moves = false;
  for (std::size_t q = 0; q < all.size(); ++q) {
    const std::size_t size = all[q].end - all[q].begin;
    if (all[q].bad) return std::nullopt;
    if (all[q].in_block) continue;
    if (size * sizeof(Bits) > all[q].reads * (sizeof(Bits) + 4) + 4096) return std::nullopt;
    windows[q] = {all[q].begin, all[q].end};
    moves = moves || !windows[q].empty();
  }
  std::optional<HostVector<Bits>> window;
  if (!window_->bounds.in_block)
    window.emplace(HostVector<Bits>::fresh(*local_, o.values.type, windows[comm_.rank()].size()));
  if (moves) {
    const HostView<Bits> values(*local_, local_of(o.values));
    remap(comm_, values.span(), block(into_total).begin, blocks_of(into_total, comm_.size()), windows,
          window ? window->data() : nullptr);
  }
  PermuteOperands l;
  l.values = window ? std::move(*window).finish() : local_of(o.values);
  l.indices = window_->rebased;
  l.source_segdes = window_->window_segdes;
  l.dest_segdes = window_->along;
  return local_->permute(vcode::Op::BPermute, std::move(l));
}

}  // namespace cvl::mpi
