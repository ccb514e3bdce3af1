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
// segments of both (known without asking where both are aligned), each element's position is on its own process: the local CVL permutes each
// block. An index outside its segment sends every process down the general path, which reports
// it with its global position.
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
  std::vector<std::uint32_t> positions;
  std::vector<std::size_t> elements;  // the element of each position
  positions.reserve(idx.size());
  // An index out of its segment: the exchange below carries the error to every process.
  const std::optional<std::string> error = error_of([&] {
    std::size_t j = 0;
    for (std::size_t k = 0; k < a.pieces(); ++k) {
      for (std::int32_t e = 0; e < a.piece_lengths[k]; ++e, ++j) {
        if (flagged && !flags[j]) continue;
        if (idx[j] < 0 || idx[j] >= piece_length[k])
          throw Error(index_fault_message(vcode::spelling(op), idx[j], first_element + j,
                                          static_cast<std::size_t>(piece_length[k])));
        positions.push_back(static_cast<std::uint32_t>(piece_start[k] + idx[j]));
        elements.push_back(j);
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
        for (std::size_t i = 0; i < positions.size(); ++i) out[elements[i]] = source[positions[i]];
      } else {
        const auto got = fetch(comm_, host<Bits>(local_of(o.values)), into_total, positions, error);
        for (std::size_t i = 0; i < got.size(); ++i) out[elements[i]] = got[i];
      }
      return wrap(from_host(type, out), along.total.get());
    }
    const auto values = host<Bits>(local_of(o.values));
    std::vector<Placed<Bits>> records(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i)
      records[i] = {positions[i], values[elements[i]]};
    const auto arrived = send_to_owners(comm_, records, into_total, error);
    std::vector<Bits> out = vcode::permute_has_defaults(op)
                                ? host<Bits>(local_of(o.defaults))
                                : std::vector<Bits>(block(into_total).size(), Bits{0});
    const std::size_t first = block(into_total).begin;
    for (const auto& r : arrived) out[r.at - first] = r.value;
    return wrap(from_host(type, out), into_total);
  });
}

}  // namespace cvl::mpi
