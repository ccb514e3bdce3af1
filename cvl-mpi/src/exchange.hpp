// The data movements every distributed operation is made of, over host copies of the blocks:
// - remap: an array held in contiguous ranges (one per process, in process order) to any range
//   each process wants (a block of the balanced layout, or the segments its elements touch);
// - fetch: elements at arbitrary positions of a block-distributed vector (gathers);
// - send_to_owners: values addressed to positions of a block-distributed vector (scatters).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "host_block.hpp"
#include "layout.hpp"

namespace cvl::mpi {

// `held` holds positions [held_begin, held_begin + held.size()) of an array: at least the parts
// of have[rank] that some process wants. The `have` ranges of the processes are disjoint and in
// process order. Writes positions want[rank], which the `have` ranges must cover, to `out`.
// Every process passes the same `have` and `want` (one range per process): one exchange, sent
// straight from `held`, or none when every process keeps what it has.
template <class T>
void remap(Communicator& comm, std::span<const T> held, std::size_t held_begin,
           const std::vector<Range>& have, const std::vector<Range>& want, T* out) {
  const int p = comm.size(), me = comm.rank();
  bool moves = false;
  for (int q = 0; q < p; ++q)
    moves = moves || have[q].begin != want[q].begin || have[q].end != want[q].end;
  if (!moves) {
    if (!want[me].empty())
      std::memcpy(out, held.data() + (want[me].begin - held_begin), want[me].size() * sizeof(T));
    return;
  }
  std::vector<std::size_t> send_at(p, 0), send_counts(p), recv_counts(p);
  for (int q = 0; q < p; ++q) {
    const Range part = intersect(have[me], want[q]);
    send_counts[q] = part.size();
    if (!part.empty()) send_at[q] = part.begin - held_begin;
    recv_counts[q] = intersect(have[q], want[me]).size();
  }
  comm.alltoallv(held.data(), send_at, send_counts, out, recv_counts);
}

// The same where `mine` holds all of have[rank], returned.
template <class T>
std::vector<T> remap(Communicator& comm, const std::vector<T>& mine, const std::vector<Range>& have,
                     const std::vector<Range>& want) {
  std::vector<T> out(want[comm.rank()].size());
  remap(comm, std::span<const T>(mine), have[comm.rank()].begin, have, want, out.data());
  return out;
}

// The same where each process knows only its own ranges (`held` is all of `have`): they are
// gathered first.
template <class T>
void remap(Communicator& comm, std::span<const T> held, Range have, Range want, T* out) {
  struct Ranges {
    Range have, want;
  };
  const auto all = comm.allgather(Ranges{have, want});
  std::vector<Range> haves(all.size()), wants(all.size());
  for (std::size_t q = 0; q < all.size(); ++q) haves[q] = all[q].have, wants[q] = all[q].want;
  remap(comm, held, have.begin, haves, wants, out);
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
void fetch(Communicator& comm, Backend& local, std::span<const T> block, std::size_t n,
           std::span<const std::uint32_t> positions, T* out,
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
  const std::size_t asked_total = Communicator::sum(asked_counts);
  auto asked = scratch<std::uint32_t>(local, asked_total);
  comm.alltoallv(requests.data(), counts, asked.data(), asked_counts);
  auto answers = scratch<T>(local, asked_total);
  for (std::size_t i = 0; i < asked_total; ++i) answers[i] = block[asked[i] - first];
  auto replies = scratch<T>(local, asked_at.size());
  comm.alltoallv(answers.data(), asked_counts, replies.data(), counts);
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
std::vector<Placed<T>> send_to_owners(Communicator& comm, std::span<const std::uint32_t> positions,
                                      std::span<const T> values, std::size_t n,
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

// Copies a run of n values: element by element when it is short (bh's runs average a few
// elements, where a call to memcpy costs more than the copy).
template <class T>
void copy_run(T* to, const T* from, std::size_t n) {
  if (n > 8) {
    std::memcpy(to, from, n * sizeof(T));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
}

// How a scatter's values travel (scatter, below): the same for every vector scattered by one
// index, so that a program that moves a tuple of fields by one index (bh) plans once.
//
// Positions often run on by one (NESL's appends and splits): a process whose elements make long
// runs of consecutive positions (and elements) sends each run as its start and length followed
// by its values, so that the values alone move; one whose runs are short sends each value's
// position.
struct ScatterPlan {
  // Runs: consecutive positions of consecutive elements, cut at the blocks' borders.
  struct Run {
    std::uint32_t start, length, first;
    int owner;
  };
  std::vector<Run> runs;
  bool by_runs = true;
  std::vector<std::size_t> counts, value_counts;  // runs or positions, values: per process
};

// How many of positions[0, limit) go on from `next` one by one (positions[k] == next + k): whole
// blocks of 16 first (the differences of a block are or-ed together, a few vector instructions),
// then one at a time.
inline std::size_t run_goes_on(const std::uint32_t* positions, std::size_t limit, std::uint32_t next) {
  using Lanes = std::uint32_t __attribute__((vector_size(16)));  // four positions
  const Lanes step = {0, 1, 2, 3};
  std::size_t k = 0;
  for (; k + 16 <= limit; k += 16) {
    const Lanes from = static_cast<std::uint32_t>(next + k) + step;
    Lanes differs = {0, 0, 0, 0};
    for (std::uint32_t t = 0; t < 16; t += 4) {
      Lanes four;
      std::memcpy(&four, positions + k + t, sizeof four);
      differs |= four ^ (from + t);
    }
    if ((differs[0] | differs[1] | differs[2] | differs[3]) != 0) break;
  }
  while (k < limit && positions[k] == next + static_cast<std::uint32_t>(k)) ++k;
  return k;
}

inline ScatterPlan plan_scatter(const Communicator& comm, std::span<const std::uint32_t> positions,
                                std::size_t n) {
  constexpr std::size_t kLongRun = 3;  // average run length from which runs are sent
  const int p = comm.size();
  const Owners owners(n, p);
  ScatterPlan plan;
  // Runs are built until there are too many for them to pay (then each position is sent),
  // unless a first look shows runs of under 2 on average (a random scatter, where building them
  // until there are too many would cost a third of a pass).
  {
    constexpr std::size_t kLook = 4096;
    std::size_t seen = 0, starts = 0;
    std::uint32_t next = kNoPosition;
    for (std::size_t j = 0; j < std::min(positions.size(), kLook); ++j) {
      if (positions[j] == kNoPosition) continue;
      ++seen;
      starts += positions[j] != next;
      next = positions[j] + 1;
    }
    plan.by_runs = starts * 2 < seen || seen < kLook / 2;
  }
  std::vector<ScatterPlan::Run>& runs = plan.runs;
  std::vector<std::size_t> block_ends(p);
  for (int q = 0; q < p; ++q) block_ends[q] = block_of(n, q, p).end;
  std::size_t run_end = 0;  // where the last run's owner's block ends
  for (std::size_t j = 0; plan.by_runs && j < positions.size(); ++j) {
    const std::uint32_t at = positions[j];
    if (at == kNoPosition) continue;
    if (!runs.empty()) {
      ScatterPlan::Run& last = runs.back();
      if (at == last.start + last.length && j == last.first + last.length && at < run_end) {
        // This element, and those that go on from it, up to the owner's border.
        const std::size_t room = std::min<std::size_t>(positions.size() - j, run_end - at);
        const std::size_t more = 1 + run_goes_on(positions.data() + j + 1, room - 1, at + 1);
        last.length += static_cast<std::uint32_t>(more);
        j += more - 1;
        continue;
      }
    }
    if (runs.size() * kLongRun >= positions.size()) {
      plan.by_runs = false;
      break;
    }
    const int owner = owners(at);
    run_end = block_ends[owner];
    runs.push_back({at, 1, static_cast<std::uint32_t>(j), owner});
  }
  plan.counts.assign(p, 0);
  plan.value_counts.assign(p, 0);
  if (plan.by_runs) {
    for (const ScatterPlan::Run& r : runs) ++plan.counts[r.owner], plan.value_counts[r.owner] += r.length;
  } else if (p == 2) {  // counted with no branch and no store per element (it vectorizes)
    runs.clear();
    const auto split = static_cast<std::uint32_t>(block_of(n, 1, 2).begin);
    std::size_t used = 0, second = 0;
    for (const std::uint32_t at : positions) {
      used += at != kNoPosition ? 1 : 0;
      second += at != kNoPosition && at >= split ? 1 : 0;
    }
    plan.counts = {used - second, second};
    plan.value_counts = plan.counts;
  } else {
    runs.clear();
    for (const std::uint32_t at : positions)
      if (at != kNoPosition) ++plan.counts[owners(at)];
    plan.value_counts = plan.counts;
  }
  return plan;
}

// One pass over a scatter's elements: a value addressed to this process's block (positions
// [first, first + size)) is written there, and one addressed to another process is appended to
// that process's bucket (pos[q], val[q]: positions and values, in the order of j); kNoPosition is
// skipped. Where `marks` is given, each position written here is marked in it (a bit per position
// of the block). No branch per element, since a random scatter's owners cannot be predicted: a
// skipped write goes to a dummy, and with two processes the other's bucket is written one ahead
// of its cursor (each bucket has room for one element more than it receives).
template <class T>
void place_or_bucket(std::span<const std::uint32_t> positions, const T* values, std::size_t n, int p, int me,
                     T* into, std::uint64_t* marks, std::uint32_t* const* pos, T* const* val) {
  const Range own = block_of(n, me, p);
  const auto first = static_cast<std::uint32_t>(own.begin);
  const auto size = static_cast<std::uint32_t>(own.size());
  T discarded;
  auto place_here = [&](std::uint32_t at, T v) {
    const std::uint32_t local_at = at - first;  // kNoPosition - first is past any block
    const bool local = local_at < size;
    *(local ? into + local_at : &discarded) = v;
    if (marks) {
      const std::uint32_t bit = local ? local_at : 0;
      marks[bit >> 6] |= std::uint64_t{local} << (bit & 63);
    }
    return local;
  };
  if (p == 2) {
    std::uint32_t* to_pos = pos[1 - me];
    T* to_val = val[1 - me];
    for (std::size_t j = 0; j < positions.size(); ++j) {
      const std::uint32_t at = positions[j];
      const T v = values[j];
      const bool local = place_here(at, v);
      *to_pos = at, *to_val = v;
      const std::size_t sent = (at != kNoPosition) & !local;
      to_pos += sent, to_val += sent;
    }
    return;
  }
  const Owners owners(n, p);
  std::uint32_t dummy_pos;
  std::vector<std::uint32_t*> pc(pos, pos + p);
  std::vector<T*> vc(val, val + p);
  pc[me] = &dummy_pos, vc[me] = &discarded;
  for (std::size_t j = 0; j < positions.size(); ++j) {
    const std::uint32_t at = positions[j];
    const T v = values[j];
    place_here(at, v);
    const int q = at == kNoPosition ? me : owners(at);
    const std::size_t sent = q != me ? 1 : 0;
    *pc[q] = at, *vc[q] = v;
    pc[q] += sent, vc[q] += sent;
  }
}

// A scatter of values to the positions of a block-distributed vector of n elements, each value
// positions[j] (skipped where kNoPosition), as `plan` (made of these positions) says, written
// into this process's block of it (`into`). Where two values go to one position the later one
// (in the order of processes, then of j) stays. The counts are exchanged first (they come from
// the plan), then one exchange of 8-byte words, sent and received in scratch arrays of the local
// CVL: for each other process, a header (the count, and whether runs or positions follow), the
// runs or the positions, the values (positions and values each with room for one more, which
// place_or_bucket writes ahead). By runs, this process's values are placed after the values of
// the processes before it; by positions, they are placed while the others' are packed, and
// marked if an earlier process sends any, so that its values do not overwrite them. `error` as
// fetch's.
template <class T>
void scatter(Communicator& comm, Backend& local, const ScatterPlan& plan,
             std::span<const std::uint32_t> positions, std::span<const T> values, std::size_t n, T* into,
             const std::optional<std::string>& error = std::nullopt) {
  static_assert(sizeof(T) <= 8 && 8 % sizeof(T) == 0);
  constexpr std::size_t kPerWord = 8 / sizeof(T);
  const int p = comm.size(), me = comm.rank();
  auto words_for = [](std::size_t count, std::size_t per_word) { return (count + per_word - 1) / per_word; };
  const bool by_runs = plan.by_runs;
  const std::size_t ahead = by_runs ? 0 : 1;  // the room place_or_bucket writes ahead into
  const std::vector<std::size_t>& counts = plan.counts;
  const std::vector<std::size_t>& value_counts = plan.value_counts;
  auto value_words = [&](std::size_t q) { return words_for(value_counts[q] + ahead, kPerWord); };
  std::vector<std::size_t> words(p), at_word(p, 0);
  for (int q = 0; q < p; ++q) {
    words[q] = q == me ? 0 : 1 + (by_runs ? counts[q] : words_for(counts[q] + 1, 2)) + value_words(q);
    if (q > 0) at_word[q] = at_word[q - 1] + words[q - 1];
  }
  const std::vector<std::size_t> recv_words = comm.exchange_counts(words, error);
  auto send_words = scratch<std::uint64_t>(local, at_word[p - 1] + words[p - 1]);
  std::uint64_t* const send = send_words.data();
  auto values_of = [&](int q) { return reinterpret_cast<T*>(send + at_word[q] + words[q] - value_words(q)); };
  for (int q = 0; q < p; ++q) {
    if (q == me) continue;
    send[at_word[q] + words[q] - 1] = 0;  // the padding after the values, if any
    if (!by_runs) send[at_word[q] + words_for(counts[q] + 1, 2)] = 0;  // after the positions
    send[at_word[q]] = counts[q] << 1 | (by_runs ? 1 : 0);
  }
  const Range own = block_of(n, me, p);
  const auto first = static_cast<std::uint32_t>(own.begin);
  std::vector<std::uint64_t> marks;  // positions this process placed before earlier processes' values
  if (by_runs) {
    std::vector<std::size_t> head(p, 0), value_at(p, 0);
    for (const ScatterPlan::Run& r : plan.runs) {
      const int q = r.owner;
      if (q == me) continue;
      send[at_word[q] + 1 + head[q]++] = std::uint64_t{r.start} << 32 | r.length;
      copy_run(values_of(q) + value_at[q], values.data() + r.first, r.length);
      value_at[q] += r.length;
    }
  } else {
    bool earlier_sends = false;
    for (int q = 0; q < me; ++q) earlier_sends = earlier_sends || recv_words[q] > 0;
    if (earlier_sends) marks.assign((own.size() + 63) / 64, 0);
    std::vector<std::uint32_t*> pos(p);
    std::vector<T*> val(p);
    for (int q = 0; q < p; ++q) {
      if (q == me) continue;  // no bucket: placed here
      pos[q] = reinterpret_cast<std::uint32_t*>(send + at_word[q] + 1);
      val[q] = values_of(q);
    }
    place_or_bucket(positions, values.data(), n, p, me, into, marks.empty() ? nullptr : marks.data(),
                    pos.data(), val.data());
  }
  auto got_words = scratch<std::uint64_t>(local, Communicator::sum(recv_words));
  const std::uint64_t* const got = got_words.data();
  comm.alltoallv(send, words, got_words.data(), recv_words);

  auto unmarked = [&](std::uint32_t at) { return marks.empty() || !(marks[at >> 6] >> (at & 63) & 1); };
  for (std::size_t q = 0, word = 0; q < static_cast<std::size_t>(p); word += recv_words[q++]) {
    if (q == static_cast<std::size_t>(me)) {
      if (by_runs)
        for (const ScatterPlan::Run& r : plan.runs)
          if (r.owner == me) copy_run(into + (r.start - first), values.data() + r.first, r.length);
      continue;
    }
    const bool checked = !marks.empty() && q < static_cast<std::size_t>(me);
    const std::size_t count = got[word] >> 1;
    const std::uint64_t* body = got + word + 1;
    if (got[word] & 1) {
      const auto* from = reinterpret_cast<const T*>(body + count);
      for (std::size_t r = 0; r < count; ++r) {
        const auto start = static_cast<std::uint32_t>(body[r] >> 32) - first;
        const auto length = static_cast<std::uint32_t>(body[r] & 0xffffffffu);
        if (!checked) {
          copy_run(into + start, from, length);
        } else {
          for (std::uint32_t t = 0; t < length; ++t)
            if (unmarked(start + t)) into[start + t] = from[t];
        }
        from += length;
      }
    } else {
      const auto* at = reinterpret_cast<const std::uint32_t*>(body);
      const auto* from = reinterpret_cast<const T*>(body + words_for(count + 1, 2));
      if (!checked) {
        for (std::size_t i = 0; i < count; ++i) into[at[i] - first] = from[i];
      } else {
        for (std::size_t i = 0; i < count; ++i)
          if (unmarked(at[i] - first)) into[at[i] - first] = from[i];
      }
    }
  }
}

}  // namespace cvl::mpi
