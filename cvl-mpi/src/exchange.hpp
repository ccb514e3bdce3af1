// The data movements every distributed operation is made of, over host copies of the blocks:
// - remap: an array held in contiguous ranges (one per process, in process order) to any range
//   each process wants (a block of the balanced layout, or the segments its elements touch);
// - fetch: elements at arbitrary positions of a block-distributed vector (gathers);
// - send_to_owners: values addressed to positions of a block-distributed vector (scatters).
#pragma once

#include <cstdint>
#include <cstring>
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
// this process holds `block` (its block_of(n)), written to out[i] for each i with
// positions[i] != kNoPosition.
// `error`: a data error this process found in making the positions, agreed on by all (exchange_counts).
inline constexpr std::uint32_t kNoPosition = UINT32_MAX;
template <class T>
void fetch(Communicator& comm, const std::vector<T>& block, std::size_t n,
           const std::vector<std::uint32_t>& positions, T* out,
           const std::optional<std::string>& error = std::nullopt) {
  const int p = comm.size(), me = comm.rank();
  const std::size_t first = block_of(n, me, p).begin;
  const Owners owners(n, p);
  // Positions in this process's own block are read here; the others are asked for.
  std::vector<std::size_t> counts(p, 0);
  std::vector<std::uint32_t> asked_at;  // the i of each position asked for, in order
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const std::uint32_t at = positions[i];
    if (at == kNoPosition) continue;
    if (at - first < block.size()) {
      out[i] = block[at - first];
    } else {
      ++counts[owners(at)];
      asked_at.push_back(static_cast<std::uint32_t>(i));
    }
  }
  std::vector<std::size_t> next(p, 0);
  for (int q = 1; q < p; ++q) next[q] = next[q - 1] + counts[q - 1];
  std::vector<std::uint32_t> requests(asked_at.size()), slot(asked_at.size());
  for (std::size_t k = 0; k < asked_at.size(); ++k) {
    const std::uint32_t at = positions[asked_at[k]];
    slot[k] = static_cast<std::uint32_t>(next[owners(at)]++);
    requests[slot[k]] = at;
  }
  const std::vector<std::size_t> asked_counts = comm.exchange_counts(counts, error);
  const std::vector<std::uint32_t> asked = comm.alltoallv(requests, counts, asked_counts);
  std::vector<T> answers(asked.size());
  for (std::size_t i = 0; i < asked.size(); ++i) answers[i] = block[asked[i] - first];
  const std::vector<T> replies = comm.alltoallv(answers, asked_counts, counts);
  for (std::size_t k = 0; k < asked_at.size(); ++k) out[asked_at[k]] = replies[slot[k]];
}

// A value for position `at` of a block-distributed vector.
template <class T>
struct Placed {
  std::uint32_t at;
  T value;
};

// Delivers values[j], addressed to positions[j] (skipped where kNoPosition), to the process whose
// block (of n) holds that position; a process receives its records in process order, each
// process's in the order of j. `error` as fetch's.
template <class T>
std::vector<Placed<T>> send_to_owners(Communicator& comm, const std::vector<std::uint32_t>& positions,
                                      const std::vector<T>& values, std::size_t n,
                                      const std::optional<std::string>& error = std::nullopt) {
  const int p = comm.size();
  const Owners owners(n, p);
  std::vector<std::size_t> counts(p, 0);
  for (const std::uint32_t at : positions)
    if (at != kNoPosition) ++counts[owners(at)];
  std::vector<std::size_t> next(p, 0);
  for (int q = 1; q < p; ++q) next[q] = next[q - 1] + counts[q - 1];
  std::vector<Placed<T>> send(next[p - 1] + counts[p - 1]);
  for (std::size_t j = 0; j < positions.size(); ++j)
    if (const std::uint32_t at = positions[j]; at != kNoPosition) send[next[owners(at)]++] = {at, values[j]};
  return comm.alltoallv(send, counts, error);
}

// What a scatter delivered to one process as runs: positions run_starts[r], run_starts[r] + 1, ...
// (run_lengths[r] of them) get the next values, run after run, in process order and each
// process's in its order.
template <class T>
struct DeliveredRuns {
  std::vector<std::uint32_t> run_starts;
  std::vector<std::int32_t> run_lengths;
  std::vector<T> values;
};

// send_to_owners for positions that mostly run on by one (NESL's appends and splits): each run of
// consecutive positions (and elements) for one owner travels as its start and length, followed
// by its values, so that such a scatter moves its values alone. One exchange of 8-byte words per
// process: the number of runs, each run (start, length), the values. `error` as fetch's.
template <class T>
DeliveredRuns<T> send_runs_to_owners(Communicator& comm, const std::vector<std::uint32_t>& positions,
                                     const std::vector<T>& values, std::size_t n,
                                     const std::optional<std::string>& error = std::nullopt) {
  static_assert(sizeof(T) <= 8 && 8 % sizeof(T) == 0);
  constexpr std::size_t kPerWord = 8 / sizeof(T);
  const int p = comm.size();
  const Owners owners(n, p);
  struct Run {
    std::uint32_t start, length;
    std::size_t first;  // its first element
    int owner;
  };
  std::vector<Run> runs;
  std::size_t next_owner_start = 0;  // where the current run's owner's block ends
  for (std::size_t j = 0; j < positions.size(); ++j) {
    const std::uint32_t at = positions[j];
    if (at == kNoPosition) continue;
    if (!runs.empty()) {
      Run& last = runs.back();
      if (at == last.start + last.length && j == last.first + last.length && at < next_owner_start) {
        ++last.length;
        continue;
      }
    }
    const int owner = owners(at);
    next_owner_start = block_of(n, owner, p).end;
    runs.push_back({at, 1, j, owner});
  }
  std::vector<std::size_t> run_counts(p, 0), value_counts(p, 0), words(p, 0);
  for (const Run& r : runs) ++run_counts[r.owner], value_counts[r.owner] += r.length;
  std::vector<std::size_t> at_word(p, 0);
  for (int q = 0; q < p; ++q) {
    words[q] = 1 + run_counts[q] + (value_counts[q] + kPerWord - 1) / kPerWord;
    if (q > 0) at_word[q] = at_word[q - 1] + words[q - 1];
  }
  std::vector<std::uint64_t> send(at_word[p - 1] + words[p - 1], 0);
  std::vector<std::size_t> run_at(p), value_at(p);
  for (int q = 0; q < p; ++q) {
    send[at_word[q]] = run_counts[q];
    run_at[q] = at_word[q] + 1;
    value_at[q] = 0;
  }
  for (const Run& r : runs) {
    const int q = r.owner;
    send[run_at[q]++] = std::uint64_t{r.start} << 32 | r.length;
    auto* out = reinterpret_cast<T*>(send.data() + at_word[q] + 1 + run_counts[q]) + value_at[q];
    std::memcpy(out, values.data() + r.first, r.length * sizeof(T));
    value_at[q] += r.length;
  }
  const std::vector<std::size_t> recv_words = comm.exchange_counts(words, error);
  const std::vector<std::uint64_t> got = comm.alltoallv(send, words, recv_words);
  DeliveredRuns<T> out;
  std::size_t word = 0;
  for (int q = 0; q < p; ++q) {
    const std::size_t end = word + recv_words[q];
    const std::size_t count = got[word];
    std::size_t length = 0;
    for (std::size_t r = 0; r < count; ++r) {
      const std::uint64_t run = got[word + 1 + r];
      out.run_starts.push_back(static_cast<std::uint32_t>(run >> 32));
      out.run_lengths.push_back(static_cast<std::int32_t>(run & 0xffffffffu));
      length += run & 0xffffffffu;
    }
    const auto* from = reinterpret_cast<const T*>(got.data() + word + 1 + count);
    out.values.insert(out.values.end(), from, from + length);
    word = end;
  }
  return out;
}

}  // namespace cvl::mpi
