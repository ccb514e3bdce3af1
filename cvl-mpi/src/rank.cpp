// RANK_UP / RANK_DOWN: the local CVL ranks each process's pieces, which is the answer for every
// segment that lies whole on one process. The segments that cross a border are ranked by
// counting where their keys are INT of a narrow range (rank_by_counting), else by a
// sample sort of (segment, key, position) over all processes: each process orders its items by
// the local ranks, the parts cut by splitters are merged where they arrive. After it an item's
// place in the global order, less where its segment's items begin, is its rank; the ranks then
// go back to the processes that hold the elements.
#include <algorithm>
#include <tuple>

#include "backend.hpp"
#include "cvl/scalar_semantics.hpp"

namespace cvl::mpi {
namespace {

struct Item {
  std::uint32_t segment;
  std::uint32_t segment_start;  // where the segment's items begin in the global order
  std::uint64_t key;       // order-preserving (scalar_semantics.hpp), complemented for RANK_DOWN
  std::uint32_t position;  // the element: equal keys keep their order

  friend bool operator<(const Item& a, const Item& b) {
    return std::tie(a.segment, a.key, a.position) < std::tie(b.segment, b.key, b.position);
  }
};

// p - 1 splitters that cut the items of all processes into p parts of about equal size: regular
// samples of each process's sorted items, sorted, every p-th.
std::vector<Item> splitters(Communicator& comm, const std::vector<Item>& sorted) {
  const int p = comm.size();
  std::vector<Item> samples;
  if (!sorted.empty())
    for (int i = 1; i < p; ++i) samples.push_back(sorted[i * sorted.size() / p]);
  const auto counts_64 = comm.allgather<std::uint64_t>(samples.size());
  const std::vector<std::size_t> counts(counts_64.begin(), counts_64.end());
  std::size_t all_count = 0;
  for (auto c : counts) all_count += c;
  std::vector<Item> all(all_count);
  comm.allgatherv(samples.data(), counts, all.data());
  std::sort(all.begin(), all.end());
  std::vector<Item> out;
  if (all.empty()) return out;
  for (int i = 1; i < p; ++i) out.push_back(all[i * all.size() / p]);
  return out;
}

// `items` holds sorted runs of the given lengths, one after another: merged into one sorted run,
// pairs of neighbouring runs at a time.
void merge_runs(std::vector<Item>& items, std::vector<std::size_t> lengths) {
  while (lengths.size() > 1) {
    std::vector<std::size_t> merged;
    std::size_t begin = 0;
    for (std::size_t r = 0; r < lengths.size(); r += 2) {
      if (r + 1 == lengths.size()) {
        merged.push_back(lengths[r]);
        break;
      }
      const auto first = items.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto middle = first + static_cast<std::ptrdiff_t>(lengths[r]);
      std::inplace_merge(first, middle, middle + static_cast<std::ptrdiff_t>(lengths[r + 1]));
      merged.push_back(lengths[r] + lengths[r + 1]);
      begin += merged.back();
    }
    lengths = std::move(merged);
  }
}

// The segments of this process's pieces that cross a border (at most its first and its last),
// with their lengths; kNone where there is none.
struct Crossing {
  static constexpr std::uint64_t kNone = UINT64_MAX;
  std::uint64_t segment[2] = {kNone, kNone};
  std::uint64_t length[2] = {0, 0};
  // The least and greatest INT key of each piece (an empty piece: low > high).
  std::int64_t low[2] = {INT64_MAX, INT64_MAX};
  std::int64_t high[2] = {INT64_MIN, INT64_MIN};
};

// A segment that crosses a border: its number, length, and the range of its INT keys.
struct CrossingSegment {
  std::uint64_t segment = 0, length = 0;
  std::int64_t low = INT64_MAX, high = INT64_MIN;
  std::size_t keys() const { return low > high ? 0 : static_cast<std::size_t>(high - low + 1); }
};

// Crossing segments' keys are counted when the counts of all of them, on every process, are at
// most about as many as their items.
constexpr std::size_t kCountingSlack = std::size_t{1} << 16;

bool counting_pays(const std::vector<CrossingSegment>& segments, int processes) {
  std::size_t slots = 0, items = 0;
  for (const CrossingSegment& s : segments) slots += s.keys(), items += s.length;
  return slots * static_cast<std::size_t>(processes) <= items + kCountingSlack;
}

// RANK of INT keys where the crossing segments hold few distinct values (bh ranks body numbers):
// a counting sort. Each process counts the keys of its crossing pieces, the counts are gathered
// (one collective), and an element's rank is the number of its segment's items with a lower key
// (a higher one for RANK_DOWN), plus those with its key on earlier processes, plus those before
// it in its piece. Every rank is found where its element is: no item moves. The ranks are
// written over `local_ranks` (the local CVL's ranks of the pieces, right for the whole ones), or
// into a new vector where it is empty (every piece crosses).
Vector rank_by_counting(Communicator& comm, Backend& local, bool down, const Vector& keys_local,
                        Vector local_ranks, const std::vector<std::size_t>& crossing,
                        const std::vector<std::size_t>& crossing_segment,
                        const std::vector<std::size_t>& piece_begin,
                        const std::vector<CrossingSegment>& segments) {
  std::vector<std::size_t> slot_begin;  // each segment's counts, one per key from its lowest
  std::size_t slots = 0;
  for (const CrossingSegment& s : segments) {
    slot_begin.push_back(slots);
    slots += s.keys();
  }
  const auto processes = static_cast<std::size_t>(comm.size());
  const HostView<std::int32_t> keys(local, keys_local);
  auto slot_of = [&](std::size_t c, std::size_t j) {
    const CrossingSegment& s = segments[crossing_segment[c]];
    return slot_begin[crossing_segment[c]] + static_cast<std::size_t>(keys[j] - s.low);
  };
  std::vector<std::uint32_t> mine(slots, 0);
  for (std::size_t c = 0; c < crossing.size(); ++c)
    for (std::size_t j = piece_begin[crossing[c]]; j < piece_begin[crossing[c] + 1]; ++j) ++mine[slot_of(c, j)];
  std::vector<std::uint32_t> all(slots * processes);
  comm.allgatherv(mine.data(), std::vector<std::size_t>(processes, slots), all.data());
  // Where the first item of each key here goes in its segment's order.
  std::vector<std::uint32_t> next(slots);
  const auto me = static_cast<std::size_t>(comm.rank());
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::uint32_t placed = 0;  // the segment's items of keys before this one in the order
    const std::size_t count = segments[i].keys();
    for (std::size_t r = 0; r < count; ++r) {
      const std::size_t slot = slot_begin[i] + (down ? count - 1 - r : r);
      std::uint32_t total = 0, before = 0;
      for (std::size_t q = 0; q < processes; ++q) {
        total += all[q * slots + slot];
        if (q < me) before += all[q * slots + slot];
      }
      next[slot] = placed + before;
      placed += total;
    }
  }
  auto ranks = local_ranks.storage ? HostVector<std::int32_t>::changing(local, std::move(local_ranks))
                                   : HostVector<std::int32_t>::fresh(local, Type::Int, keys.size());
  for (std::size_t c = 0; c < crossing.size(); ++c)
    for (std::size_t j = piece_begin[crossing[c]]; j < piece_begin[crossing[c] + 1]; ++j)
      ranks[j] = static_cast<std::int32_t>(next[slot_of(c, j)]++);
  return std::move(ranks).finish();
}

}  // namespace

Vector MpiBackend::rank(vcode::Op op, Vector v, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t n = v.length.get();
  refuse_stored(n);
  if (const DistributedSegdes* a = aligned_parts(sd))  // each segment sorted where it lies
    return wrap(local_->rank(op, take_local(std::move(v)), a->local), n);
  const DistributedSegdes& d = parts(sd);
  const Range mine = block(n);
  const bool down = op == vcode::Op::RankDown;
  if (!d.crosses) return wrap(local_->rank(op, local_of(v), d.local), n);  // every segment whole somewhere

  // The pieces that are parts of crossing segments: the first where it continues one, the last
  // where its segment goes on past this block.
  std::vector<std::size_t> crossing;
  if (d.continues) crossing.push_back(0);
  if (const std::size_t last = d.pieces() - 1;
      d.pieces() > 0 && (crossing.empty() || last != 0) &&
      static_cast<std::size_t>(d.starts_of_pieces()[last] + d.piece_segment_lengths[last]) > mine.end)
    crossing.push_back(last);
  std::vector<std::size_t> piece_begin(d.pieces() + 1, 0);  // where each piece's elements begin
  for (std::size_t k = 0; k < d.pieces(); ++k) piece_begin[k + 1] = piece_begin[k] + d.piece_lengths[k];
  // Every crossing segment, in order, with its length and (INT) the range of its keys.
  Crossing here;
  for (std::size_t c = 0; c < crossing.size(); ++c) {
    here.segment[c] = d.first_segment + crossing[c];
    here.length[c] = static_cast<std::uint64_t>(d.piece_segment_lengths[crossing[c]]);
  }
  if (v.type == Type::Int && !crossing.empty()) {
    const HostView<std::int32_t> keys(*local_, local_of(v));
    for (std::size_t c = 0; c < crossing.size(); ++c)
      for (std::size_t j = piece_begin[crossing[c]]; j < piece_begin[crossing[c] + 1]; ++j) {
        here.low[c] = std::min<std::int64_t>(here.low[c], keys[j]);
        here.high[c] = std::max<std::int64_t>(here.high[c], keys[j]);
      }
  }
  std::vector<CrossingSegment> segments_crossing;
  for (const Crossing& c : comm_.allgather(here))
    for (int i = 0; i < 2; ++i)
      if (c.segment[i] != Crossing::kNone)
        segments_crossing.push_back({c.segment[i], c.length[i], c.low[i], c.high[i]});
  std::sort(segments_crossing.begin(), segments_crossing.end(),
            [](const CrossingSegment& a, const CrossingSegment& b) { return a.segment < b.segment; });
  std::vector<CrossingSegment> merged;
  for (const CrossingSegment& c : segments_crossing) {
    if (merged.empty() || merged.back().segment != c.segment) {
      merged.push_back(c);
      continue;
    }
    merged.back().low = std::min(merged.back().low, c.low);
    merged.back().high = std::max(merged.back().high, c.high);
  }
  segments_crossing = std::move(merged);
  auto crossing_index = [&](std::uint64_t segment) {
    for (std::size_t i = 0; i < segments_crossing.size(); ++i)
      if (segments_crossing[i].segment == segment) return i;
    throw InternalError("cvl-mpi: RANK of a crossing segment that no process named");
  };
  const bool counted = v.type == Type::Int && counting_pays(segments_crossing, comm_.size());
  // The local CVL's ranks of the pieces: the answer for the whole ones, where the sample sort of
  // the crossing ones starts; counting needs none where every piece crosses.
  Vector local_ranks;
  if (!counted || crossing.size() < d.pieces()) local_ranks = local_->rank(op, local_of(v), d.local);
  if (counted) {
    std::vector<std::size_t> crossing_segment;  // of each crossing piece
    for (const std::size_t k : crossing) crossing_segment.push_back(crossing_index(d.first_segment + k));
    return wrap(rank_by_counting(comm_, *local_, down, local_of(v), std::move(local_ranks), crossing,
                                 crossing_segment, piece_begin, segments_crossing),
                n);
  }
  auto items_begin = [&](std::uint64_t segment) {
    std::uint64_t begin = 0;
    for (std::size_t i = 0, end = crossing_index(segment); i < end; ++i) begin += segments_crossing[i].length;
    return begin;
  };

  // This process's items in order: each goes to its piece's place among the items plus its rank
  // in the piece.
  std::size_t item_count = 0;
  for (const std::size_t k : crossing) item_count += static_cast<std::size_t>(d.piece_lengths[k]);
  std::vector<Item> items(item_count);
  {
    const HostView<std::int32_t> rank_in_piece(*local_, local_ranks);
    auto add_items = [&](const auto& values, auto key_of) {
      std::size_t at = 0;
      for (const std::size_t k : crossing) {
        const auto segment = static_cast<std::uint32_t>(d.first_segment + k);
        const auto segment_start = static_cast<std::uint32_t>(items_begin(segment));
        for (std::size_t j = piece_begin[k]; j < piece_begin[k + 1]; ++j) {
          const std::uint64_t key = key_of(values[j]);
          items[at + static_cast<std::size_t>(rank_in_piece[j])] = {
              segment, segment_start, down ? ~key : key, static_cast<std::uint32_t>(mine.begin + j)};
        }
        at += static_cast<std::size_t>(d.piece_lengths[k]);
      }
    };
    if (v.type == Type::Int) {
      add_items(HostView<std::int32_t>(*local_, local_of(v)),
                [](std::int32_t x) -> std::uint64_t { return cvl_sem::int_rank_key(x); });
    } else if (v.type == Type::Float) {
      const bool legacy = float_rank_ == FloatRankOrder::Legacy;
      add_items(HostView<double>(*local_, local_of(v)), [legacy](double x) -> std::uint64_t {
        return legacy ? cvl_sem::legacy_float_rank_key(x) : cvl_sem::float_rank_key(x);
      });
    } else {
      throw InternalError("cvl-mpi: RANK of a BOOL vector");
    }
  }

  // To the process of the part each item falls in, then sorted there.
  const std::vector<Item> cuts = splitters(comm_, items);
  std::vector<std::size_t> counts(comm_.size(), 0);
  for (std::size_t i = 0, q = 0; i < items.size(); ++i) {
    while (q < cuts.size() && cuts[q] < items[i]) ++q;
    ++counts[q];
  }
  const std::vector<std::size_t> recv_counts = comm_.exchange_counts(counts);
  std::vector<Item> part = comm_.alltoallv(items, counts, recv_counts);
  merge_runs(part, recv_counts);
  const auto offset = static_cast<std::size_t>(comm_.sum_before(static_cast<std::int64_t>(part.size())));

  std::vector<std::uint32_t> positions(part.size());
  std::vector<std::int32_t> ranks(part.size());
  for (std::size_t i = 0; i < part.size(); ++i) {
    positions[i] = part[i].position;
    ranks[i] = static_cast<std::int32_t>(offset + i - part[i].segment_start);
  }
  // Every crossing element gets its rank, written over its rank in the piece.
  const auto arrived = send_to_owners(comm_, std::span<const std::uint32_t>(positions),
                                      std::span<const std::int32_t>(ranks), n);
  return wrap(place_records(arrived, wrap(std::move(local_ranks), n), n), n);
}

}  // namespace cvl::mpi
