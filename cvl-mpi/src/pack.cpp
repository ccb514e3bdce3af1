// PACK: each process packs its pieces with the local CVL; the counts of a segment that crosses
// blocks are added up at its owner, and the kept elements are spread evenly again.
#include "backend.hpp"

namespace cvl::mpi {
namespace {

struct BorderCount {
  std::int64_t first;  // the count of the first piece
  std::uint8_t nonempty;
  std::uint8_t continues;
  std::uint8_t whole;
};

}  // namespace

std::pair<Vector, Segdes> MpiBackend::pack(Vector v, Vector flags, const Segdes& sd) {
  Operation guard(*this);
  const DistributedSegdes& d = parts(sd);
  const std::size_t segments = sd.segments.get();
  const std::size_t m = block(v.length.get()).size();
  const Type type = v.type;
  // Not a structured binding: clang 14 cannot capture one in the lambda below.
  std::pair<Vector, Segdes> packed =
      local_->pack(take_local(std::move(v)), take_local(std::move(flags)), d.local);
  const Vector kept = std::move(packed.first);
  std::vector<std::int32_t> counts = host<std::int32_t>(local_->segment_lengths(packed.second));

  const bool whole = d.continues && d.pieces() == 1;
  const auto all = d.crosses ? comm_.allgather(BorderCount{d.continues ? counts[0] : 0, m > 0,
                                                           d.continues, whole})
                             : std::vector<BorderCount>();
  if (d.crosses && d.pieces() > d.owned_begin()) {
    for (int q = comm_.rank() + 1; q < comm_.size(); ++q) {
      if (!all[q].nonempty) continue;
      if (!all[q].continues) break;
      counts.back() += static_cast<std::int32_t>(all[q].first);
      if (!all[q].whole) break;
    }
  }
  const std::vector<std::int32_t> owned(counts.begin() + d.owned_begin(), counts.end());
  const Range have{d.first_segment + d.owned_begin(), d.first_segment + d.pieces()};
  const auto lengths = remap(comm_, owned, have, block(segments));
  Segdes out_sd = make_segdes(wrap(from_host(Type::Int, lengths), segments));

  const std::size_t total = out_sd.total.get();
  const std::size_t kept_here = kept.length.get();
  const auto offset = static_cast<std::size_t>(comm_.sum_before(static_cast<std::int64_t>(kept_here)));
  Vector out = with_element_bits(type, [&]<class Bits>() {
    const auto spread = remap(comm_, host<Bits>(kept), Range{offset, offset + kept_here}, block(total));
    return wrap(from_host(type, spread), total);
  });
  return {std::move(out), std::move(out_sd)};
}

}  // namespace cvl::mpi
