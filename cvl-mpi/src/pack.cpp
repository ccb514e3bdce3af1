// PACK: each process packs its pieces with the local CVL; the counts of a segment that crosses
// blocks are added up at its owner, and the kept elements are spread evenly again.
#include "backend.hpp"
#include "borders.hpp"

namespace cvl::mpi {

std::pair<Vector, Segdes> MpiBackend::pack(Vector v, Vector flags, const Segdes& sd) {
  Operation guard(*this);
  refuse_stored(sd.total.get());
  if (comm_.size() == 1) {  // nothing to spread: the kept elements are the result's one block
    auto [kept, kept_sd] = local_->pack(take_local(std::move(v)), take_local(std::move(flags)), stored(sd).local);
    const std::size_t total = kept.length.get();
    return {wrap(std::move(kept), total), solo_segdes(std::move(kept_sd))};
  }
  const DistributedSegdes& d = parts(sd);
  const std::size_t segments = sd.segments.get();
  const std::size_t m = block(v.length.get()).size();
  const Type type = v.type;
  // Not a structured binding: clang 14 cannot capture one in the lambda below.
  std::pair<Vector, Segdes> packed =
      local_->pack(take_local(std::move(v)), take_local(std::move(flags)), d.local);
  const Vector kept = std::move(packed.first);
  std::vector<std::int32_t> counts = host<std::int32_t>(local_->segment_lengths(packed.second));

  if (d.crosses) {
    // Each process tells the count of its first piece; this process's last segment, if it owns
    // it, adds the counts later processes hold.
    const auto all =
        comm_.allgather(BorderPart<std::int32_t>::of(d, m, d.continues ? counts[0] : 0));
    for (int q : holders_after(all, comm_.rank(), d)) counts.back() += all[q].value;
  }
  const auto lengths = owned_to_segment_blocks(counts, d, segments);
  Segdes out_sd = make_segdes(wrap(from_host(Type::Int, lengths), segments));

  const std::size_t total = out_sd.total.get();
  const std::size_t kept_here = kept.length.get();
  const auto offset = static_cast<std::size_t>(comm_.sum_before(static_cast<std::int64_t>(kept_here)));
  Vector out = with_element_bits(type, [&]<class Bits>() {
    const HostView<Bits> held(*local_, kept);
    auto spread = HostVector<Bits>::fresh(*local_, type, block(total).size());
    remap(comm_, held.span(), Range{offset, offset + kept_here}, block(total), spread.data());
    return wrap(std::move(spread).finish(), total);
  });
  return {std::move(out), std::move(out_sd)};
}

}  // namespace cvl::mpi
