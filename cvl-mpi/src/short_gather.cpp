// Gathers from a short source (one segment, at most kShortSource elements) by an index at least
// as long: bh reads every field of its tree this way, level after level. The source is copied
// whole to every process once (one all-gather, kept with the vector), and each process's block of
// the result is the local CVL's gather from that copy at its block of the index: no exchange, and
// the local CVL may leave the gather pending, to be done where an elementwise op reads it.
//
// Such a result remembers its source and positions (ReadAt), alike on every process: a PERMUTE
// or BPERMUTE of it moves the positions instead of the values and reads the source again at
// them, so that the fields read at one set of positions and moved by one index (bh's split, its
// slices) move 4-byte positions once, as cvl-cpu does on one process.
#include "backend.hpp"

namespace cvl::mpi {
namespace {

// A source at most this long is copied whole to every process (512 KiB of FLOAT).
constexpr std::size_t kShortSource = std::size_t{1} << 16;

}  // namespace

std::optional<Vector> MpiBackend::permute_read_at(vcode::Op op, PermuteOperands& o) {
  if (op != vcode::Op::Permute && op != vcode::Op::BPermute) return std::nullopt;
  const auto* values = static_cast<const DistributedVector*>(o.values.storage.get());
  if (!values) throw InternalError("cvl-mpi: a vector without storage");
  if (values->read_at) {
    const std::shared_ptr<const ReadAt> read = values->read_at;
    Vector positions = moved_positions(op, read->positions, o);
    // A gather writes every position; a PERMUTE by an index that is not a permutation leaves
    // some unwritten (their values are unspecified, but no source is to be read at them): then
    // the values move instead.
    if (op == vcode::Op::Permute && !indices_within(positions, read->source->values.length.get()))
      return std::nullopt;
    o.values = {};
    return read_at(read->source, std::move(positions));
  }
  if (op != vcode::Op::BPermute) return std::nullopt;
  const std::size_t length = o.source_segdes.total.get(), reads = o.dest_segdes.total.get();
  if (o.source_segdes.segments.get() != 1 || length == 0 || length > kShortSource || reads < length)
    return std::nullopt;
  if (!indices_within(o.indices, length)) return std::nullopt;  // the general path reports the bad one
  std::shared_ptr<const ReplicatedSource> source = replicated(o.values);
  o.values = {};
  return read_at(std::move(source), std::move(o.indices));
}

std::shared_ptr<const ReplicatedSource> MpiBackend::replicated(const Vector& source) {
  const auto* d = static_cast<const DistributedVector*>(source.storage.get());
  if (!d->whole) {
    const std::size_t n = source.length.get();
    Vector whole = with_element_bits(source.type, [&]<class Bits>() {
      auto out = HostVector<Bits>::fresh(*local_, source.type, n);
      download(source, 0, n, out.data());
      return std::move(out).finish();
    });
    d->whole = std::make_shared<const ReplicatedSource>(ReplicatedSource{std::move(whole), one_segment(n)});
  }
  return d->whole;
}

Vector MpiBackend::read_at(std::shared_ptr<const ReplicatedSource> source, Vector positions) {
  const std::size_t n = positions.length.get();
  PermuteOperands l;
  l.values = source->values;
  l.indices = local_of(positions);
  l.source_segdes = source->segdes;
  l.dest_segdes = one_segment(l.indices.length.get());
  Vector out = wrap(local_->permute(vcode::Op::BPermute, std::move(l)), n);
  static_cast<DistributedVector*>(out.storage.get())->read_at =
      std::make_shared<const ReadAt>(ReadAt{std::move(source), std::move(positions)});
  return out;
}

Vector MpiBackend::moved_positions(vcode::Op op, const Vector& positions, const PermuteOperands& o) {
  const Segdes& dest = op == vcode::Op::Permute ? o.source_segdes : o.dest_segdes;
  for (const MovedPositions& m : moved_) {
    if (m.op != op || m.positions.lock() != positions.storage || m.indices.lock() != o.indices.storage ||
        m.source_segdes.lock() != o.source_segdes.storage || m.dest_segdes.lock() != dest.storage)
      continue;
    if (std::shared_ptr<Storage> result = m.result.lock())
      return Vector{Type::Int, m.result_length, std::move(result)};
  }
  PermuteOperands inner;
  inner.values = positions;
  inner.indices = o.indices;
  inner.source_segdes = o.source_segdes;
  inner.dest_segdes = o.dest_segdes;
  Vector result = permute(op, std::move(inner));
  moved_[next_moved_] = {op, positions.storage, o.indices.storage, o.source_segdes.storage,
                         dest.storage, result.storage, result.length.get()};
  next_moved_ = (next_moved_ + 1) % moved_.size();
  return result;
}

bool MpiBackend::indices_within(const Vector& indices, std::size_t length) {
  for (const CheckedIndices& c : checked_)
    if (c.length == length && c.indices.lock() == indices.storage) return c.within;
  // Checked by the local CVL, which keeps the answer for its own gathers by these indices.
  const Vector& mine = local_of(indices);
  const bool outside = mine.length.get() > 0 && !host_memory_of(*local_).indices_below(mine, length);
  const bool within = comm_.sum_all(outside ? 1 : 0) == 0;
  checked_[next_checked_] = {indices.storage, length, within};
  next_checked_ = (next_checked_ + 1) % checked_.size();
  return within;
}

}  // namespace cvl::mpi
