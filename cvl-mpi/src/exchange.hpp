// The data movements every distributed operation is made of, over host copies of the blocks:
// - remap: an array held in contiguous ranges (one per process, in process order) to any range
//   each process wants (a block of the balanced layout, or the segments its elements touch);
// - fetch: elements at arbitrary positions of a block-distributed vector (gathers);
// - send_to_owners: values addressed to positions of a block-distributed vector (scatters).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "layout.hpp"

namespace cvl::mpi {

// `mine` holds positions have[rank] of an array; the `have` ranges of the processes are disjoint
// and in process order. Returns positions want[rank], which the `have` ranges must cover. Every
// process passes the same `have` and `want` (one range per process): one exchange, or none when
// every process keeps what it has.
template <class T>
std::vector<T> remap(Communicator& comm, const std::vector<T>& mine, const std::vector<Range>& have,
                     const std::vector<Range>& want) {
  const int p = comm.size(), me = comm.rank();
  bool moves = false;
  for (int q = 0; q < p; ++q)
    moves = moves || have[q].begin != want[q].begin || have[q].end != want[q].end;
  if (!moves) return mine;
  std::vector<std::size_t> send_counts(p), recv_counts(p);
  std::vector<T> send;
  for (int q = 0; q < p; ++q) {
    const Range part = intersect(have[me], want[q]);
    send_counts[q] = part.size();
    send.insert(send.end(), mine.begin() + (part.begin - have[me].begin),
                mine.begin() + (part.end - have[me].begin));
    recv_counts[q] = intersect(have[q], want[me]).size();
  }
  return comm.alltoallv(send, send_counts, recv_counts);
}

// The same where each process knows only its own ranges: they are gathered first.
template <class T>
std::vector<T> remap(Communicator& comm, const std::vector<T>& mine, Range have, Range want) {
  struct Ranges {
    Range have, want;
  };
  const auto all = comm.allgather(Ranges{have, want});
  std::vector<Range> haves(all.size()), wants(all.size());
  for (std::size_t q = 0; q < all.size(); ++q) haves[q] = all[q].have, wants[q] = all[q].want;
  return remap(comm, mine, haves, wants);
}

// Each process's block of n (layout.hpp).
inline std::vector<Range> blocks_of(std::size_t n, int size) {
  std::vector<Range> out(size);
  for (int q = 0; q < size; ++q) out[q] = block_of(n, q, size);
  return out;
}

// The elements at `positions` (each < n) of a vector of n elements, block-distributed, of which
// this process holds `block` (its block_of(n)).
// `error`: a data error this process found in making the positions, agreed on by all (exchange_counts).
template <class T>
std::vector<T> fetch(Communicator& comm, const std::vector<T>& block, std::size_t n,
                     const std::vector<std::uint32_t>& positions,
                     const std::optional<std::string>& error = std::nullopt) {
  const int p = comm.size(), me = comm.rank();
  const std::size_t first = block_of(n, me, p).begin;
  std::vector<T> out(positions.size());
  // Positions in this process's own block are read here; the others are asked for.
  constexpr std::size_t kHere = static_cast<std::size_t>(-1);
  std::vector<std::size_t> counts(p, 0), slot(positions.size(), kHere);
  std::vector<int> owner(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] >= first && positions[i] - first < block.size()) {
      owner[i] = me;
      out[i] = block[positions[i] - first];
    } else {
      ++counts[owner[i] = owner_of(positions[i], n, p)];
    }
  }
  std::vector<std::size_t> next(p, 0);
  for (int q = 1; q < p; ++q) next[q] = next[q - 1] + counts[q - 1];
  std::vector<std::uint32_t> requests(next[p - 1] + counts[p - 1]);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (owner[i] == me) continue;
    slot[i] = next[owner[i]]++;
    requests[slot[i]] = positions[i];
  }
  const std::vector<std::size_t> asked_counts = comm.exchange_counts(counts, error);
  const std::vector<std::uint32_t> asked = comm.alltoallv(requests, counts, asked_counts);
  std::vector<T> answers(asked.size());
  for (std::size_t i = 0; i < asked.size(); ++i) answers[i] = block[asked[i] - first];
  const std::vector<T> replies = comm.alltoallv(answers, asked_counts, counts);
  for (std::size_t i = 0; i < positions.size(); ++i)
    if (slot[i] != kHere) out[i] = replies[slot[i]];
  return out;
}

// A value for position `at` of a block-distributed vector.
template <class T>
struct Placed {
  std::uint32_t at;
  T value;
};

// Delivers each record to the process whose block (of n) holds its position; a process receives
// its records in process order, each process's in the order it sent them.
// `error` as fetch's.
template <class T>
std::vector<Placed<T>> send_to_owners(Communicator& comm, const std::vector<Placed<T>>& records,
                                      std::size_t n,
                                      const std::optional<std::string>& error = std::nullopt) {
  const int p = comm.size();
  std::vector<std::size_t> counts(p, 0);
  std::vector<int> owner(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) ++counts[owner[i] = owner_of(records[i].at, n, p)];
  std::vector<std::size_t> next(p, 0);
  for (int q = 1; q < p; ++q) next[q] = next[q - 1] + counts[q - 1];
  std::vector<Placed<T>> send(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) send[next[owner[i]]++] = records[i];
  return comm.alltoallv(send, counts, error);
}

}  // namespace cvl::mpi
