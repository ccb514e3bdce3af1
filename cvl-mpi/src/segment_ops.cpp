// DIST and INDEX (per-segment values brought to the pieces, then the local CVL), EXTRACT and
// REPLACE (one element per segment, fetched from or sent to the process that holds it).
#include "backend.hpp"
#include "cvl/errors.hpp"
#include "cvl/scalar_semantics.hpp"

namespace cvl::mpi {

// EXTRACT, REPLACE: where the element each of this process's segments names is, every index
// checked against its segment. An index out of range leaves no positions and sets `error`, which
// the exchange that follows makes every process's.
std::vector<std::uint32_t> MpiBackend::element_positions(const char* op, const Vector& indices,
                                                         const Segdes& sd,
                                                         std::optional<std::string>& error) {
  const DistributedSegdes& d = parts(sd);
  const std::size_t first_segment = block(sd.segments.get()).begin;
  const auto idx = host<std::int32_t>(local_of(indices));
  const std::vector<std::int64_t>& starts = d.segment_starts();
  std::vector<std::uint32_t> positions(idx.size());
  error = error_of([&] {
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] < 0 || idx[k] >= d.my_lengths[k])
        throw Error(index_fault_message(op, idx[k], first_segment + k,
                                        static_cast<std::size_t>(d.my_lengths[k])));
      positions[k] = static_cast<std::uint32_t>(starts[k] + idx[k]);
    }
  });
  if (error) positions.clear();
  return positions;
}

Vector MpiBackend::distribute(Vector values, const Segdes& sd) {
  Operation guard(*this);
  refuse_unless_streamed(sd.total.get());
  if (const DistributedSegdes* a = aligned_parts(sd))
    return wrap(local_->distribute(take_local(std::move(values)), a->local), sd.total.get());
  const DistributedSegdes& d = parts(sd);
  const Type type = values.type;
  return with_element_bits(type, [&]<class Bits>() {
    return wrap(local_->distribute(to_pieces<Bits>(values, sd.segments.get(), d), d.local), sd.total.get());
  });
}

// A piece that continues a segment starts at element `offset` of it: its INDEX values start
// offset strides further on.
Vector MpiBackend::index(Vector starts, Vector strides, const Segdes& sd) {
  Operation guard(*this);
  refuse_unless_streamed(sd.total.get());
  if (const DistributedSegdes* a = aligned_parts(sd))
    return wrap(local_->index(take_local(std::move(starts)), take_local(std::move(strides)), a->local),
                sd.total.get());
  const DistributedSegdes& d = parts(sd);
  const std::size_t segments = sd.segments.get();
  Vector first = to_pieces<std::uint32_t>(starts, segments, d);
  Vector step = to_pieces<std::uint32_t>(strides, segments, d);
  if (d.continues) {
    const auto offset = static_cast<std::uint32_t>(block(sd.total.get()).begin - d.first_piece_start);
    auto changed = HostVector<std::int32_t>::changing(*local_, std::move(first));
    const HostView<std::int32_t> steps(*local_, step);
    changed[0] = cvl_sem::index_value(changed[0], steps[0], offset);
    first = std::move(changed).finish();
  }
  return wrap(local_->index(std::move(first), std::move(step), d.local), sd.total.get());
}

// On one process the local CVL's checks report the same positions as the general path's.
Vector MpiBackend::extract(Vector v, Vector indices, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t segments = sd.segments.get(), total = sd.total.get();
  refuse_stored(total);
  if (comm_.size() == 1)
    return wrap(agreed([&] { return local_->extract(take_local(std::move(v)), take_local(std::move(indices)),
                                                    stored(sd).local); }),
                segments);
  std::optional<std::string> error;
  const auto positions = element_positions("EXTRACT", indices, sd, error);
  const Type type = v.type;
  return with_element_bits(type, [&]<class Bits>() {
    auto out = HostVector<Bits>::fresh(*local_, type, positions.size());
    const HostView<Bits> source(*local_, local_of(v));
    fetch(comm_, *local_, source.span(), total, std::span<const std::uint32_t>(positions), out.data(), error);
    return wrap(std::move(out).finish(), segments);
  });
}

Vector MpiBackend::replace(Vector v, Vector indices, Vector values, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t total = sd.total.get();
  refuse_stored(total);
  if (comm_.size() == 1)
    return wrap(agreed([&] {
                  return local_->replace(take_local(std::move(v)), take_local(std::move(indices)),
                                         take_local(std::move(values)), stored(sd).local);
                }),
                total);
  std::optional<std::string> error;
  const auto positions = element_positions("REPLACE", indices, sd, error);
  const Type type = v.type;
  return with_element_bits(type, [&]<class Bits>() {
    const HostView<Bits> sent(*local_, local_of(values));
    const auto arrived = send_to_owners(comm_, std::span<const std::uint32_t>(positions), sent.span(), total, error);
    return wrap(place_records(arrived, std::move(v), total), total);
  });
}

}  // namespace cvl::mpi
