// The data movements every distributed operation is made of, over host copies of the blocks:
// - remap: an array held in contiguous ranges (one per process, in process order) to any range
//   each process wants (a block of the balanced layout, or the segments its elements touch);
// - fetch: elements at arbitrary positions of a block-distributed vector (gathers);
// - send_to_owners: values addressed to positions of a block-distributed vector (scatters).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "layout.hpp"

namespace cvl::mpi {

// `held` holds positions [held_begin, held_begin + held.size()) of an array: at least the parts
// of have[rank] that some process wants. The `have` ranges of the processes are disjoint and in
// process order. Returns positions want[rank], which the `have` ranges must cover. Every process
// passes the same `have` and `want` (one range per process): one exchange, or none when every
// process keeps what it has.
template <class T>
std::vector<T> remap(Communicator& comm, std::span<const T> held, std::size_t held_begin,
                     const std::vector<Range>& have, const std::vector<Range>& want) {
  const int p = comm.size(), me = comm.rank();
  bool moves = false;
  for (int q = 0; q < p; ++q)
    moves = moves || have[q].begin != want[q].begin || have[q].end != want[q].end;
  auto part_of_held = [&](Range part) {
    return held.subspan(part.begin - held_begin, part.size());
  };
  if (!moves) {
    if (want[me].empty()) return {};
    const auto kept = part_of_held(want[me]);
    return std::vector<T>(kept.begin(), kept.end());
  }
  std::vector<std::size_t> send_counts(p), recv_counts(p);
  std::vector<T> send;
  for (int q = 0; q < p; ++q) {
    const Range part = intersect(have[me], want[q]);
    send_counts[q] = part.size();
    if (!part.empty()) {
      const auto sent = part_of_held(part);
      send.insert(send.end(), sent.begin(), sent.end());
    }
    recv_counts[q] = intersect(have[q], want[me]).size();
  }
  return comm.alltoallv(send, send_counts, recv_counts);
}

// The same where `mine` holds all of have[rank].
template <class T>
std::vector<T> remap(Communicator& comm, const std::vector<T>& mine, const std::vector<Range>& have,
                     const std::vector<Range>& want) {
  return remap(comm, std::span<const T>(mine), have[comm.rank()].begin, have, want);
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

// What a scatter delivered to one process, in process order and each process's in its order:
// where every process sent runs, positions run_starts[r], run_starts[r] + 1, ... (run_lengths[r]
// of them) get the next values, run after run; else `at` holds each value's position in the
// block.
template <class T>
struct Delivered {
  std::vector<std::uint32_t> run_starts;
  std::vector<std::int32_t> run_lengths;
  std::vector<std::int32_t> at;
  std::vector<T> values;
  bool by_runs = true;
};

// send_to_owners for positions that often run on by one (NESL's appends and splits): a process
// whose elements make long runs of consecutive positions (and elements) sends each run as its
// start and length followed by its values, so that the values alone move; one whose runs are
// short sends each value's position, as send_to_owners does. One exchange of 8-byte words: for
// each process, a header (the count, and which of the two follows), the runs or the positions,
// the values. Positions arrive in the receiver's block. `error` as fetch's.
template <class T>
Delivered<T> send_runs_to_owners(Communicator& comm, const std::vector<std::uint32_t>& positions,
                                 const std::vector<T>& values, std::size_t n,
                                 const std::optional<std::string>& error = std::nullopt) {
  static_assert(sizeof(T) <= 8 && 8 % sizeof(T) == 0);
  constexpr std::size_t kPerWord = 8 / sizeof(T);
  constexpr std::size_t kLongRun = 3;  // average run length from which runs are sent
  const int p = comm.size(), me = comm.rank();
  const Owners owners(n, p);
  auto words_for = [](std::size_t count, std::size_t per_word) { return (count + per_word - 1) / per_word; };

  // Runs: consecutive positions of consecutive elements, cut at the blocks' borders.
  struct Run {
    std::uint32_t start, length, first;
    int owner;
  };
  // Built until there are too many for runs to pay (then each position is sent).
  std::vector<Run> runs;
  bool by_runs = true;
  std::size_t run_end = 0;  // where the last run's owner's block ends
  for (std::size_t j = 0; j < positions.size(); ++j) {
    const std::uint32_t at = positions[j];
    if (at == kNoPosition) continue;
    if (!runs.empty()) {
      Run& last = runs.back();
      if (at == last.start + last.length && j == last.first + last.length && at < run_end) {
        ++last.length;
        continue;
      }
    }
    if (runs.size() * kLongRun >= positions.size()) {
      by_runs = false;
      break;
    }
    const int owner = owners(at);
    run_end = block_of(n, owner, p).end;
    runs.push_back({at, 1, static_cast<std::uint32_t>(j), owner});
  }
  std::vector<std::size_t> counts(p, 0), value_counts(p, 0);
  if (by_runs) {
    for (const Run& r : runs) ++counts[r.owner], value_counts[r.owner] += r.length;
  } else {
    for (const std::uint32_t at : positions)
      if (at != kNoPosition) ++counts[owners(at)];
    value_counts = counts;
  }
  std::vector<std::size_t> words(p), at_word(p, 0), head(p), value_at(p, 0);
  for (int q = 0; q < p; ++q) {
    words[q] = 1 + (by_runs ? counts[q] : words_for(counts[q], 2)) + words_for(value_counts[q], kPerWord);
    if (q > 0) at_word[q] = at_word[q - 1] + words[q - 1];
  }
  std::vector<std::uint64_t> send(at_word[p - 1] + words[p - 1]);
  auto values_of = [&](int q) {
    return reinterpret_cast<T*>(send.data() + at_word[q] + words[q] -
                                words_for(value_counts[q], kPerWord));
  };
  for (int q = 0; q < p; ++q) {
    send[at_word[q] + words[q] - 1] = 0;  // the padding after the values, if any
    send[at_word[q]] = counts[q] << 1 | (by_runs ? 1 : 0);
  }
  if (by_runs) {
    for (const Run& r : runs) {
      const int q = r.owner;
      send[at_word[q] + 1 + head[q]++] = std::uint64_t{r.start} << 32 | r.length;
      std::memcpy(values_of(q) + value_at[q], values.data() + r.first, r.length * sizeof(T));
      value_at[q] += r.length;
    }
  } else {
    for (std::size_t j = 0; j < positions.size(); ++j) {
      const std::uint32_t at = positions[j];
      if (at == kNoPosition) continue;
      const int q = owners(at);
      reinterpret_cast<std::uint32_t*>(send.data() + at_word[q] + 1)[head[q]++] = at;
      values_of(q)[value_at[q]++] = values[j];
    }
  }
  const std::vector<std::size_t> recv_words = comm.exchange_counts(words, error);
  const std::vector<std::uint64_t> got = comm.alltoallv(send, words, recv_words);

  Delivered<T> out;
  const std::size_t first = block_of(n, me, p).begin;
  std::size_t arriving = 0;  // an upper bound of the values: the words after the headers
  for (std::size_t q = 0, word = 0; q < static_cast<std::size_t>(p); word += recv_words[q++]) {
    out.by_runs = out.by_runs && (got[word] & 1) != 0;
    arriving += (recv_words[q] - 1) * kPerWord;
  }
  out.values.reserve(arriving);
  if (!out.by_runs) out.at.reserve(arriving);
  for (std::size_t q = 0, word = 0; q < static_cast<std::size_t>(p); word += recv_words[q++]) {
    const std::size_t count = got[word] >> 1;
    const std::uint64_t* body = got.data() + word + 1;
    std::size_t length = count;
    if (got[word] & 1) {
      length = 0;
      for (std::size_t r = 0; r < count; ++r) {
        const auto start = static_cast<std::uint32_t>(body[r] >> 32);
        const auto run_length = static_cast<std::uint32_t>(body[r] & 0xffffffffu);
        length += run_length;
        if (out.by_runs) {
          out.run_starts.push_back(start);
          out.run_lengths.push_back(static_cast<std::int32_t>(run_length));
        } else {
          for (std::uint32_t i = 0; i < run_length; ++i)
            out.at.push_back(static_cast<std::int32_t>(start + i - first));
        }
      }
      body += count;
    } else {
      const auto* at = reinterpret_cast<const std::uint32_t*>(body);
      for (std::size_t i = 0; i < count; ++i) out.at.push_back(static_cast<std::int32_t>(at[i] - first));
      body += words_for(count, 2);
    }
    const auto* from = reinterpret_cast<const T*>(body);
    out.values.insert(out.values.end(), from, from + length);
  }
  return out;
}

}  // namespace cvl::mpi
