// DIST and INDEX (per-segment values brought to the pieces, then the local CVL), EXTRACT and
// REPLACE (one element per segment, fetched from or sent to the process that holds it).
#include "backend.hpp"
#include "cvl/errors.hpp"
#include "cvl/scalar_semantics.hpp"

namespace cvl::mpi {
namespace {

// INDEX's per-segment operands, travelling together.
struct StartStride {
  std::int32_t start;
  std::int32_t stride;
};

}  // namespace

// EXTRACT, REPLACE: where the element each of this process's segments names is, every index
// checked against its segment. An index out of range leaves no positions and sets `error`, which
// the exchange that follows makes every process's.
std::vector<std::uint32_t> MpiBackend::element_positions(const char* op, const Vector& indices,
                                                         const Segdes& sd,
                                                         std::optional<std::string>& error) {
  const DistributedSegdes& d = parts(sd);
  const std::size_t first_segment = block(sd.segments.get()).begin;
  const auto idx = host<std::int32_t>(local_of(indices));
  std::vector<std::uint32_t> positions(idx.size());
  error = error_of([&] {
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] < 0 || idx[k] >= d.my_lengths[k])
        throw Error(index_fault_message(op, idx[k], first_segment + k,
                                        static_cast<std::size_t>(d.my_lengths[k])));
      positions[k] = static_cast<std::uint32_t>(d.my_starts[k] + idx[k]);
    }
  });
  if (error) positions.clear();
  return positions;
}

Vector MpiBackend::distribute(Vector values, const Segdes& sd) {
  Operation guard(*this);
  if (const DistributedSegdes* a = aligned_parts(sd))
    return wrap(local_->distribute(take_local(std::move(values)), a->local), sd.total.get());
  const DistributedSegdes& d = parts(sd);
  const Type type = values.type;
  return with_element_bits(type, [&]<class Bits>() {
    const auto mine = host<Bits>(local_of(values));
    const auto per_piece = for_pieces(mine, sd.segments.get(), d);
    return wrap(local_->distribute(from_host(type, per_piece), d.local), sd.total.get());
  });
}

// A piece that continues a segment starts at element `offset` of it: its INDEX values start
// offset strides further on.
Vector MpiBackend::index(Vector starts, Vector strides, const Segdes& sd) {
  Operation guard(*this);
  if (const DistributedSegdes* a = aligned_parts(sd))
    return wrap(local_->index(take_local(std::move(starts)), take_local(std::move(strides)), a->local),
                sd.total.get());
  const DistributedSegdes& d = parts(sd);
  const std::size_t segments = sd.segments.get();
  // Both per-segment operands to the pieces in one exchange.
  const auto my_starts = host<std::int32_t>(local_of(starts));
  const auto my_strides = host<std::int32_t>(local_of(strides));
  std::vector<StartStride> mine(my_starts.size());
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = {my_starts[i], my_strides[i]};
  const auto both = for_pieces(mine, segments, d);
  std::vector<std::int32_t> first(both.size()), step(both.size());
  for (std::size_t k = 0; k < both.size(); ++k) first[k] = both[k].start, step[k] = both[k].stride;
  if (d.continues) {
    const auto offset = static_cast<std::uint32_t>(block(sd.total.get()).begin - d.piece_starts[0]);
    first[0] = cvl_sem::index_value(first[0], step[0], offset);
  }
  return wrap(local_->index(from_host(Type::Int, first), from_host(Type::Int, step), d.local),
              sd.total.get());
}

// On one process the local CVL's checks report the same positions as the general path's.
Vector MpiBackend::extract(Vector v, Vector indices, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t segments = sd.segments.get(), total = sd.total.get();
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
    fetch(comm_, source.span(), total, std::span<const std::uint32_t>(positions), out.data(), error);
    return wrap(std::move(out).finish(), segments);
  });
}

Vector MpiBackend::replace(Vector v, Vector indices, Vector values, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t total = sd.total.get();
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
