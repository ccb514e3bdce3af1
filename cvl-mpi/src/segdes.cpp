// MAKE_SEGDES: the descriptor seen by segment (the lengths' own blocks) and by element (the
// pieces of this process's block of elements; handles.hpp).
#include <algorithm>

#include "backend.hpp"

namespace cvl::mpi {
namespace {

// A segment as its owner by element learns of it.
struct SegmentRecord {
  std::uint32_t id;
  std::uint32_t start;
  std::int32_t length;
};

// What a process tells the others of the segments whose start its block holds.
struct LastStart {
  std::uint64_t count;
  SegmentRecord last;
  std::uint8_t own_block;  // they are exactly its block of segments
};

}  // namespace

Segdes MpiBackend::make_segdes(Vector lengths) {
  Operation guard(*this);
  const int p = comm_.size();
  const std::size_t segments = lengths.length.get();
  const Range mine = block(segments);
  auto d = std::make_shared<DistributedSegdes>();
  if (p == 1) {  // every segment whole on this process: the local CVL's descriptor is the answer
    Segdes local = agreed([&] { return local_->make_segdes(local_of(lengths)); });
    return solo_segdes(std::move(local), std::move(lengths));
  }
  d->my_lengths = host<std::int32_t>(local_of(lengths));
  d->lengths = std::move(lengths);
  agreed([&] {
    for (std::size_t i = 0; i < d->my_lengths.size(); ++i)
      if (d->my_lengths[i] < 0)
        throw Error("MAKE_SEGDES: negative segment length " + std::to_string(d->my_lengths[i]) +
                    " at position " + std::to_string(mine.begin + i));
  });
  std::int64_t sum = 0;
  for (auto length : d->my_lengths) sum += length;
  const std::int64_t offset = comm_.sum_before(sum);
  const auto total = static_cast<std::uint64_t>(comm_.sum_all(sum));
  if (total > kMaxVectorLength) throw Error(vector_too_long_message(total));

  // Each segment goes to the process whose block of elements holds its start.
  d->my_starts.resize(d->my_lengths.size());
  std::vector<SegmentRecord> send(d->my_lengths.size());
  std::vector<std::size_t> counts(p, 0);
  std::int64_t start = offset;
  for (std::size_t i = 0; i < send.size(); ++i) {
    d->my_starts[i] = start;
    send[i] = {static_cast<std::uint32_t>(mine.begin + i), static_cast<std::uint32_t>(start),
               d->my_lengths[i]};
    const auto at = static_cast<std::size_t>(start);
    ++counts[at == total ? p - 1 : owner_of(at, total, p)];
    start += d->my_lengths[i];
  }
  const std::vector<SegmentRecord> starting_here = comm_.alltoallv(send, counts);

  const Range elements = block(total);
  LastStart last{starting_here.size(), {}, 0};
  if (!starting_here.empty()) last.last = starting_here.back();
  last.own_block = starting_here.size() == mine.size() &&
                   (starting_here.empty() || starting_here.front().id == mine.begin);
  const auto all = comm_.allgather(last);
  // The segment process r's first element continues, if any: the last one starting on the
  // nearest earlier process that has any, when it reaches past r's first element.
  auto continued_at = [&](int r) -> const SegmentRecord* {
    const Range e = block_of(total, r, p);
    if (e.empty()) return nullptr;
    for (int q = r - 1; q >= 0; --q) {
      if (all[q].count == 0) continue;
      const SegmentRecord& s = all[q].last;
      return s.start + static_cast<std::size_t>(s.length) > e.begin ? &s : nullptr;
    }
    return nullptr;
  };
  bool own_blocks = true;
  for (int r = 0; r < p; ++r) {
    d->crosses = d->crosses || continued_at(r) != nullptr;
    own_blocks = own_blocks && all[r].own_block;
  }
  d->aligned = own_blocks && !d->crosses;
  if (const SegmentRecord* s = continued_at(comm_.rank())) {
    d->continues = true;
    d->first_segment = s->id;
    d->piece_lengths.push_back(static_cast<std::int32_t>(
        std::min<std::size_t>(s->start + static_cast<std::size_t>(s->length), elements.end) -
        elements.begin));
    d->piece_starts.push_back(s->start);
    d->piece_segment_lengths.push_back(s->length);
  }
  if (!d->continues && !starting_here.empty()) d->first_segment = starting_here.front().id;
  for (const SegmentRecord& s : starting_here) {
    d->piece_lengths.push_back(static_cast<std::int32_t>(
        std::min<std::size_t>(s.start + static_cast<std::size_t>(s.length), elements.end) -
        s.start));
    d->piece_starts.push_back(s.start);
    d->piece_segment_lengths.push_back(s.length);
  }
  d->local = local_->make_segdes(from_host(Type::Int, d->piece_lengths));
  if (d->local.total.get() != elements.size())
    throw InternalError("cvl-mpi: the pieces do not cover this process's block");
  return Segdes{segments, static_cast<std::size_t>(total), std::move(d)};
}

Segdes MpiBackend::solo_segdes(Segdes local, Vector lengths) {
  auto d = std::make_shared<DistributedSegdes>();
  const std::size_t segments = local.segments.get(), total = local.total.get();
  d->lengths = lengths.storage ? std::move(lengths) : wrap(local_->segment_lengths(local), segments);
  d->local = std::move(local);
  d->aligned = true;
  d->host_pieces = false;  // made when a general path asks (parts)
  return Segdes{segments, total, std::move(d)};
}

}  // namespace cvl::mpi
