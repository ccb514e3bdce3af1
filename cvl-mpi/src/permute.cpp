// The permute family: each element's global target (a scatter) or source (a gather) position is
// worked out where the element is, checked against its segment, and the values travel to or from
// the process whose block holds that position.
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
  if (comm_.size() == 1) {  // every position is here, and the local CVL reports the global ones
    const std::size_t length = gather ? along.total.get() : into.total.get();
    return wrap(agreed([&] { return local_->permute(op, take_local_operands(op, std::move(o))); }), length);
  }
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
  std::vector<std::int64_t> piece_start;
  std::vector<std::int32_t> piece_length;
  if (&a == &t) {
    piece_start = a.piece_starts;
    piece_length = a.piece_segment_lengths;
  } else {
    std::vector<SegmentPlace> mine(t.my_starts.size());
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = {t.my_starts[i], t.my_lengths[i]};
    const std::vector<SegmentPlace> got = for_pieces(mine, segments, a);
    piece_start.resize(got.size());
    piece_length.resize(got.size());
    for (std::size_t k = 0; k < got.size(); ++k) piece_start[k] = got[k].start, piece_length[k] = got[k].length;
  }
  const auto idx = host<std::int32_t>(local_of(o.indices));
  const auto flags = flagged ? host<std::uint8_t>(local_of(o.flags)) : std::vector<std::uint8_t>();
  // Each element's global position (kNoPosition where unflagged). An index out of its segment:
  // the exchange below carries the error to every process.
  std::vector<std::uint32_t> positions(idx.size(), kNoPosition);
  const std::optional<std::string> error = error_of([&] {
    std::size_t j = 0;
    for (std::size_t k = 0; k < a.pieces(); ++k) {
      const std::int64_t start = piece_start[k];
      const std::int32_t length = piece_length[k];
      for (std::size_t end = j + static_cast<std::size_t>(a.piece_lengths[k]); j < end; ++j) {
        if (flagged && !flags[j]) continue;
        if (idx[j] < 0 || idx[j] >= length)
          throw Error(index_fault_message(vcode::spelling(op), idx[j], first_element + j,
                                          static_cast<std::size_t>(length)));
        positions[j] = static_cast<std::uint32_t>(start + idx[j]);
      }
    }
  });

  const Type type = o.values.type;
  return with_element_bits(type, [&]<class Bits>() {
    if (gather) {
      std::vector<Bits> out(idx.size(), Bits{0});
      // A source no larger than what the requests and answers would carry is copied whole to
      // every process instead (one all-gather, no per-element routing). Every process decides
      // alike: the rule reads global lengths only.
      const std::size_t requests_per_process = along.total.get() / comm_.size() + 1;
      if (into_total * sizeof(Bits) <= requests_per_process * (sizeof(Bits) + 4)) {
        comm_.agree(error);
        std::vector<Bits> source(into_total);
        download(o.values, 0, into_total, source.data());
        for (std::size_t j = 0; j < positions.size(); ++j)
          if (positions[j] != kNoPosition) out[j] = source[positions[j]];
      } else {
        fetch(comm_, host<Bits>(local_of(o.values)), into_total, positions, out.data(), error);
      }
      return wrap(from_host(type, out), along.total.get());
    }
    const auto got = send_runs_to_owners(comm_, positions, host<Bits>(local_of(o.values)), into_total, error);
    return wrap(place_runs(op, type, got, std::move(o.defaults), into_total), into_total);
  });
}

// A BPERMUTE of one segment from one segment (bh's slices, and its reads of short sources): each
// process finds the range of source positions its block of the index reads (the local CVL's
// MIN_REDUCE and MAX_REDUCE), the ranges are gathered (one all-gather, which also tells whether
// any index is outside the source), each process receives the source elements of its range (one
// exchange) and the local CVL gathers from them. Nothing when an index is bad (the general path
// reports it), or when some range is so much larger than its block that asking for each
// position moves fewer bytes (many processes reading all of a long source).
template <class Bits>
std::optional<Vector> MpiBackend::gather_by_window(const PermuteOperands& o, std::size_t into_total) {
  const Vector& idx = local_of(o.indices);
  const std::size_t m = idx.length.get();
  struct Window {
    std::uint64_t begin = 0, end = 0, reads = 0;
    std::uint32_t bad = 0;
  };
  Window w;
  w.reads = m;
  const Segdes mine = one_segment(m);
  if (m > 0) {
    std::int32_t lowest = 0, highest = 0;
    local_->download(local_->reduce(vcode::Op::MinReduce, idx, mine), 0, 1, &lowest);
    local_->download(local_->reduce(vcode::Op::MaxReduce, idx, mine), 0, 1, &highest);
    if (lowest < 0 || static_cast<std::size_t>(highest) >= into_total) {
      w.bad = 1;
    } else {
      w.begin = static_cast<std::uint64_t>(lowest);
      w.end = static_cast<std::uint64_t>(highest) + 1;
    }
  }
  const std::vector<Window> all = comm_.allgather(w);
  std::vector<Range> windows(all.size());
  for (std::size_t q = 0; q < all.size(); ++q) {
    const std::size_t size = all[q].end - all[q].begin;
    if (all[q].bad || size * sizeof(Bits) > all[q].reads * (sizeof(Bits) + 4) + 4096) return std::nullopt;
    windows[q] = {all[q].begin, all[q].end};
  }
  const std::vector<Bits> window = ranges_of<Bits>(local_of(o.values), into_total, windows);
  PermuteOperands l;
  l.values = from_host(o.values.type, window);
  l.indices = idx;
  if (w.begin != 0) {  // positions in the window
    const std::vector<std::int32_t> first{static_cast<std::int32_t>(w.begin)};
    Vector operands[2] = {idx, local_->distribute(from_host(Type::Int, first), mine)};
    l.indices = local_->elementwise(vcode::Op::Sub, Type::Int, operands);
  }
  l.source_segdes = one_segment(window.size());
  l.dest_segdes = mine;
  return local_->permute(vcode::Op::BPermute, std::move(l));
}

// Positions want[rank] of a block-distributed vector of n elements whose block here is `local`:
// one exchange (remap), downloading no more of the block than others want.
template <class Bits>
std::vector<Bits> MpiBackend::ranges_of(const Vector& local, std::size_t n,
                                        const std::vector<Range>& want) {
  const Range have = block(n);
  Range needed{have.end, have.begin};
  for (const Range& w : want) {
    const Range part = intersect(have, w);
    if (part.empty()) continue;
    needed.begin = std::min(needed.begin, part.begin);
    needed.end = std::max(needed.end, part.end);
  }
  std::vector<Bits> held(needed.end > needed.begin ? needed.size() : 0);
  if (!held.empty()) local_->download(local, needed.begin - have.begin, held.size(), held.data());
  return remap(comm_, std::span<const Bits>(held), needed.begin, blocks_of(n, comm_.size()), want);
}

Vector MpiBackend::place(vcode::Op op, Vector values, Vector at, Vector&& defaults,
                         std::size_t block_size) {
  const Type type = values.type;
  const std::size_t count = values.length.get();
  PermuteOperands l;
  l.values = std::move(values);
  l.indices = std::move(at);
  l.dest_segdes = one_segment(block_size);
  if (defaults.storage) {
    l.defaults = take_local(std::move(defaults));
  } else if (count == block_size && !vcode::permute_has_flags(op)) {
    l.source_segdes = l.dest_segdes;
    return local_->permute(vcode::Op::Permute, std::move(l));
  } else {
    l.defaults = with_element_bits(type, [&]<class Bits>() {
      return local_->distribute(from_host(type, std::vector<Bits>{Bits{0}}), l.dest_segdes);
    });
  }
  l.source_segdes = one_segment(count);
  return local_->permute(vcode::Op::DPermute, std::move(l));
}

}  // namespace cvl::mpi
