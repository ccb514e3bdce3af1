// MAKE_SEGDES: the descriptor seen by segment (the lengths' own blocks) and by element (the
// pieces of this process's block of elements; handles.hpp).
#include <algorithm>
#include <span>

#include "backend.hpp"
#include "cvl_cpu/cvl_cpu.hpp"

namespace cvl::mpi {
namespace {

// What a process tells the others of its block of lengths.
struct BlockSum {
  std::int64_t sum;
  std::int64_t negative_at;  // the first negative length's position, or -1
  std::int32_t negative;
  std::int32_t ends_full;  // the block is not empty and its last length is not 0
};

// The sum of a block of lengths (which begins at segment `first`), whether its last is not 0, and
// its first negative one: one pass with no branch (it vectorizes), a second only to find a negative.
BlockSum block_sum(std::span<const std::int32_t> lengths, std::size_t first) {
  std::int64_t sum = 0;
  std::int32_t least = 0;
  for (const std::int32_t length : lengths) {
    sum += length;
    least = std::min(least, length);
  }
  BlockSum out{sum, -1, 0, !lengths.empty() && lengths.back() != 0 ? 1 : 0};
  if (least < 0) {
    const auto negative = std::find_if(lengths.begin(), lengths.end(), [](std::int32_t x) { return x < 0; });
    out.negative_at = static_cast<std::int64_t>(first) + (negative - lengths.begin());
    out.negative = *negative;
  }
  return out;
}

// Whether each process owns exactly its block of segments (`owned`: every process's).
bool owns_segment_blocks(const std::vector<Range>& owned, std::size_t segments) {
  const int p = static_cast<int>(owned.size());
  for (int r = 0; r < p; ++r) {
    const Range by_segment = block_of(segments, r, p);
    if (owned[r].begin != by_segment.begin || owned[r].end != by_segment.end) return false;
  }
  return true;
}

}  // namespace

// Few segments: every process gets all the lengths in one all-gather and works out the rest
// itself (the general path below makes three collectives).
Segdes MpiBackend::make_segdes_everywhere(Vector lengths) {
  const int p = comm_.size(), me = comm_.rank();
  const std::size_t segments = lengths.length.get();
  auto d = std::make_shared<DistributedSegdes>();
  d->my_lengths = host<std::int32_t>(local_of(lengths));
  d->lengths = std::move(lengths);
  std::vector<std::int32_t> all(segments);
  comm_.allgatherv(d->my_lengths.data(), [&] {
    std::vector<std::size_t> counts(p);
    for (int q = 0; q < p; ++q) counts[q] = block_of(segments, q, p).size();
    return counts;
  }(), all.data());
  std::vector<std::int64_t> starts(segments + 1, 0);
  for (std::size_t i = 0; i < segments; ++i) {
    if (all[i] < 0)
      comm_.throw_agreed("MAKE_SEGDES: negative segment length " + std::to_string(all[i]) +
                         " at position " + std::to_string(i));
    starts[i + 1] = starts[i] + all[i];
  }
  const auto total = static_cast<std::uint64_t>(starts[segments]);
  const Range mine = block(segments);
  d->my_first_start = starts[mine.begin];
  std::vector<std::int64_t> my_starts(starts.begin() + mine.begin, starts.begin() + mine.end);
  std::vector<std::int64_t> piece_starts;

  // Each process owns the segments whose start its block of elements holds (one starting at the
  // total, empty, belongs to the last): consecutive segments, [owned_from[r], owned_from[r + 1]),
  // found by a search of the starts (they never fall), since empty blocks come last.
  std::vector<std::size_t> owned_from(p + 1, segments);
  owned_from[0] = 0;
  for (int r = 1; r < p; ++r) {
    const auto begin = static_cast<std::int64_t>(block_of(total, r, p).begin);
    owned_from[r] = static_cast<std::size_t>(
        std::lower_bound(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(segments), begin) -
        starts.begin());
  }
  d->piece_ranges.resize(p);
  d->owned_ranges.resize(p);
  for (int r = 0; r < p; ++r) {
    const Range e = block_of(total, r, p);
    const std::size_t lo = owned_from[r], hi = owned_from[r + 1];
    // The segment before its first continues into its block when it reaches past the block's start.
    const bool continues =
        !e.empty() && lo > 0 && static_cast<std::size_t>(starts[lo - 1] + all[lo - 1]) > e.begin;
    d->crosses = d->crosses || continues;
    d->piece_ranges[r] = {continues ? lo - 1 : lo, hi};
    d->owned_ranges[r] = {lo, hi};
    if (r != me) continue;
    d->continues = continues;
    d->first_segment = d->piece_ranges[r].size() > 0 ? d->piece_ranges[r].begin : 0;
    for (std::size_t i = d->piece_ranges[r].begin; i < hi; ++i) {
      const auto start = static_cast<std::size_t>(starts[i]);
      const std::size_t end = std::min<std::size_t>(start + static_cast<std::size_t>(all[i]), e.end);
      d->piece_lengths.push_back(static_cast<std::int32_t>(end - std::max(start, e.begin)));
      piece_starts.push_back(starts[i]);
      d->piece_segment_lengths.push_back(all[i]);
    }
    if (!piece_starts.empty()) d->first_piece_start = piece_starts.front();
  }
  d->set_starts(std::move(my_starts), std::move(piece_starts));
  d->aligned = !d->crosses && owns_segment_blocks(d->owned_ranges, segments);
  d->local = local_->make_segdes(from_host(Type::Int, d->piece_lengths));
  if (d->local.total.get() != block(total).size())
    throw InternalError("cvl-mpi: the pieces do not cover this process's block");
  mark_streamed_block(d->local, total);
  return Segdes{segments, static_cast<std::size_t>(total), std::move(d)};
}

Segdes MpiBackend::make_segdes(Vector lengths) {
  Operation guard(*this);
  const int p = comm_.size();
  const std::size_t segments = lengths.length.get();
  if (p == 1) {  // every segment whole on this process: the local CVL's descriptor is the answer
    Segdes local = agreed([&] { return local_->make_segdes(local_of(lengths)); });
    return solo_segdes(std::move(local), std::move(lengths));
  }
  if (segments <= all_lengths_max_) return make_segdes_everywhere(std::move(lengths));
  const Range mine = block(segments);
  auto d = std::make_shared<DistributedSegdes>();
  // One all-gather tells every process each block's sum and first negative length: the offsets,
  // the total and the error, if any, alike everywhere.
  std::vector<BlockSum> sums;
  {
    const HostView<std::int32_t> my_lengths(*local_, local_of(lengths));
    sums = comm_.allgather(block_sum(my_lengths.span(), mine.begin));
  }
  d->lengths = std::move(lengths);
  std::int64_t offset = 0, sum_of_all = 0;
  for (int q = 0; q < p; ++q) {
    if (sums[q].negative_at >= 0)
      comm_.throw_agreed("MAKE_SEGDES: negative segment length " + std::to_string(sums[q].negative) +
                         " at position " + std::to_string(sums[q].negative_at));
    if (q < comm_.rank()) offset += sums[q].sum;
    sum_of_all += sums[q].sum;
  }
  const auto total = static_cast<std::uint64_t>(sum_of_all);
  // Where each block of segments covers exactly the same process's block of elements (segments
  // of one element each, a DIST's descriptor of singletons, or of two each, the pairs NESL
  // makes), the descriptor is aligned with no more said, and the local CVL's descriptor is made
  // from the block of lengths in place; the host arrays wait until a general path asks (parts).
  // Not so where a block ends with an empty segment: it starts in the next block, which owns it
  // (handles.hpp), as the other paths find.
  {
    bool aligned = true;
    std::int64_t before = 0;
    for (int q = 0; q + 1 < p && aligned; ++q) {
      before += sums[q].sum;
      aligned = sums[q].ends_full != 0 && before == static_cast<std::int64_t>(block_of(total, q + 1, p).begin);
    }
    if (aligned) {
      d->local = local_->make_segdes(local_of(d->lengths));
      mark_streamed_block(d->local, total);
      d->aligned = true;
      d->host_pieces = false;
      return Segdes{segments, static_cast<std::size_t>(total), std::move(d)};
    }
  }
  d->my_lengths = host<std::int32_t>(local_of(d->lengths));

  // Each process r owns the segments whose start its block of elements holds (one starting at the
  // total, empty, belongs to the last): consecutive segments from the first that starts at or
  // after r's first element. That one, and where it starts, is the least of each process's own
  // first such segment (starts never fall): one pass over this process's lengths finds its own
  // for every r (the blocks' first elements rise with r), one reduction the least.
  d->my_first_start = offset;
  std::vector<std::uint64_t> first_at(2 * static_cast<std::size_t>(p));  // segment, then its start
  {
    std::vector<std::int64_t> first_element(p);
    for (int r = 0; r < p; ++r) first_element[r] = static_cast<std::int64_t>(block_of(total, r, p).begin);
    int r = 0;
    std::int64_t start = offset;
    const std::vector<std::int32_t>& lengths = d->my_lengths;
    constexpr std::size_t kChunk = 64;  // lengths summed at once (a loop that vectorizes)
    for (std::size_t i = 0; i < lengths.size() && r < p;) {
      if (i + kChunk <= lengths.size()) {  // a chunk followed by no first element is passed whole
        std::int64_t sum = 0;
        for (std::size_t t = 0; t < kChunk; ++t) sum += lengths[i + t];
        if (start + sum < first_element[r]) {
          start += sum, i += kChunk;
          continue;
        }
      }
      for (const std::size_t end = std::min(i + kChunk, lengths.size()); i < end && r < p; ++i) {
        for (; r < p && start >= first_element[r]; ++r) {
          first_at[r] = mine.begin + i;
          first_at[p + r] = static_cast<std::uint64_t>(start);
        }
        start += lengths[i];
      }
    }
    for (; r < p; ++r) first_at[r] = segments, first_at[p + r] = total;
  }
  comm_.min_all(first_at);
  // A process's first element is inside an earlier segment when no segment starts there.
  d->piece_ranges.resize(p);
  d->owned_ranges.resize(p);
  std::vector<bool> continued(p);
  for (int r = 0; r < p; ++r) {
    const Range e = block_of(total, r, p);
    const std::size_t lo = r == 0 ? 0 : first_at[r];
    const std::size_t hi = r + 1 == p ? segments : first_at[r + 1];
    continued[r] = !e.empty() && lo > 0 && first_at[p + r] != e.begin;
    d->crosses = d->crosses || continued[r];
    d->piece_ranges[r] = {continued[r] ? lo - 1 : lo, hi};
    d->owned_ranges[r] = {lo, hi};
  }
  d->aligned = !d->crosses && owns_segment_blocks(d->owned_ranges, segments);

  // This process's pieces: the lengths of their segments (one exchange, none where every
  // process's pieces are its block of segments), then where each starts and what of it is here.
  const int me = comm_.rank();
  const Range own = d->piece_ranges[me];
  d->continues = continued[me];
  d->first_segment = own.size() > 0 ? own.begin : 0;
  d->piece_segment_lengths.resize(own.size());
  remap(comm_, std::span<const std::int32_t>(d->my_lengths), mine.begin, blocks_of(segments, p),
        d->piece_ranges, d->piece_segment_lengths.data());
  // The pieces: the whole segments, the first cut where it continues one from before this block,
  // the last where its segment goes on past it.
  const Range elements = block(total);
  d->first_piece_start = static_cast<std::int64_t>(first_at[p + me]) -
                         (d->continues ? d->piece_segment_lengths[0] : 0);
  d->piece_lengths = d->piece_segment_lengths;
  if (!d->piece_lengths.empty()) {
    // Where the last piece's segment ends: where the next process's first segment starts.
    const auto end = static_cast<std::int64_t>(me + 1 < p ? first_at[p + me + 1] : total);
    if (d->continues) d->piece_lengths[0] -= static_cast<std::int32_t>(elements.begin - d->first_piece_start);
    if (const auto past = end - static_cast<std::int64_t>(elements.end); past > 0)
      d->piece_lengths.back() -= static_cast<std::int32_t>(past);
  }
  d->local = local_->make_segdes(from_host(Type::Int, d->piece_lengths));
  if (d->local.total.get() != elements.size())
    throw InternalError("cvl-mpi: the pieces do not cover this process's block");
  mark_streamed_block(d->local, total);
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
