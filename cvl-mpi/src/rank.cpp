// RANK_UP / RANK_DOWN: a sample sort of (segment, key, position) over all processes: each process
// orders its own items with the local CVL's RANK, the parts cut by splitters are merged where
// they arrive. After it an element's place in the global order, less its segment's start, is its
// rank; the ranks then go back to the processes that hold the elements.
#include <algorithm>
#include <tuple>

#include "backend.hpp"
#include "cvl/scalar_semantics.hpp"

namespace cvl::mpi {
namespace {

struct Item {
  std::uint32_t segment;
  std::uint32_t segment_start;
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

}  // namespace

Vector MpiBackend::rank(vcode::Op op, Vector v, const Segdes& sd) {
  Operation guard(*this);
  const std::size_t n = v.length.get();
  if (const DistributedSegdes* a = aligned_parts(sd))  // each segment sorted where it lies
    return wrap(local_->rank(op, take_local(std::move(v)), a->local), n);
  const DistributedSegdes& d = parts(sd);
  const std::size_t first = block(n).begin;
  const bool down = op == vcode::Op::RankDown;
  // This process's items in order: the local CVL ranks each piece (its keys and ties are these),
  // and each item goes to its piece's start plus its rank there.
  const std::size_t m = block(n).size();
  std::vector<Item> items(m);
  {
    const Vector local_ranks = local_->rank(op, local_of(v), d.local);
    const HostView<std::int32_t> rank_in_piece(*local_, local_ranks);
    auto add_items = [&](const auto& values, auto key_of) {
      std::size_t j = 0;
      for (std::size_t k = 0; k < d.pieces(); ++k) {
        const std::size_t piece_begin = j;
        for (std::int32_t e = 0; e < d.piece_lengths[k]; ++e, ++j) {
          const std::uint64_t key = key_of(values[j]);
          items[piece_begin + static_cast<std::size_t>(rank_in_piece[j])] = {
              static_cast<std::uint32_t>(d.first_segment + k),
              static_cast<std::uint32_t>(d.piece_starts[k]), down ? ~key : key,
              static_cast<std::uint32_t>(first + j)};
        }
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
  // Every position gets its rank: a plain PERMUTE of what arrives places them.
  const auto arrived = send_to_owners(comm_, std::span<const std::uint32_t>(positions),
                                      std::span<const std::int32_t>(ranks), n);
  return wrap(place_records(arrived, Vector{}, n), n);
}

}  // namespace cvl::mpi
