// RANK_UP / RANK_DOWN (spec/CVL.md §6): values become order-preserving unsigned keys (complemented
// for RANK_DOWN, which keeps equal keys in index order), then each segment is ranked on its own:
// small segments by the small-size kernels, several at a time across threads; large ones by radix
// sort, with the whole team on a segment large enough to be worth it.
#include <limits>
#include <string>

#include "cvl/op_dispatch.hpp"
#include "families/families.hpp"
#include "families/radix_rank.hpp"

namespace cvl::cpu {
namespace {

using I32 = std::int32_t;

// Below this many elements in total a rank runs on one thread; above it, a segment this long
// is sorted by the whole team.
constexpr std::size_t kParallelRankThreshold = std::size_t{1} << 15;
constexpr std::size_t kTeamSortThreshold = std::size_t{1} << 16;

// Digit width of long segments: 11-bit digits save two of eight passes over FLOAT keys; for
// INT keys 8-bit digits measured faster than 11-bit ones (the 2048 write streams of a pass
// overflow the L1 cache), and they are always used below 2^16 elements, where the bucket tables
// would not be amortized.
constexpr std::size_t kWideDigitsFrom = std::size_t{1} << 16;
template <class Key>
inline constexpr int kLongSegmentDigitBits = sizeof(Key) == 4 ? 8 : 11;

template <class Key>
void rank_segment(radix::Item<Key>* items, radix::Item<Key>* spare, std::size_t length, I32* rank) {
  if (length <= radix::kTinyMax)
    radix::rank_tiny(items, length, rank);
  else if (length <= radix::kSortMax)
    radix::rank_by_sort(items, length, rank);
  else if (length < kWideDigitsFrom)
    radix::rank_radix<Key, 8>(items, spare, length, rank);
  else
    radix::rank_radix<Key, kLongSegmentDigitBits<Key>>(items, spare, length, rank);
}

// Ranks every segment of `items` (one per element, in element order) into `rank`.
template <class Key>
void rank_items(const Parallel& par, const SegmentView& sd, radix::Item<Key>* items, I32* rank) {
  const std::size_t n = sd.total;
  std::size_t longest = 0;
  for (std::size_t k = 0; k < sd.segments; ++k) longest = std::max(longest, sd.length(k));
  Scratch<radix::Item<Key>> spare(longest > radix::kSortMax ? n : 0);  // only radix sorts need it
  auto run = [&](std::size_t k) {
    rank_segment(items + sd.start(k), spare.data() + sd.start(k), sd.length(k), rank);
  };

  const int team = par.team_for(n, kParallelRankThreshold);
  if (team <= 1) {
    for (std::size_t k = 0; k < sd.segments; ++k) run(k);
    return;
  }
  // Long segments one at a time with the whole team; the rest several at a time, one thread each.
  const bool team_sorts = longest >= kTeamSortThreshold;
  if (team_sorts) {
    for (std::size_t k = 0; k < sd.segments; ++k)
      if (sd.length(k) >= kTeamSortThreshold)
        radix::rank_radix_parallel<Key, kLongSegmentDigitBits<Key>>(
            team, items + sd.start(k), spare.data() + sd.start(k), sd.length(k), rank);
  }
  for_each_part(par, sd, kParallelRankThreshold, [&](const Part& p, std::size_t) {
    for (std::size_t k = p.first; k < p.last; ++k)
      if (!team_sorts || sd.length(k) < kTeamSortThreshold) run(k);
  });
}

// items[i] = {key(values[i]) complemented for a descending rank, i}.
template <class Key, class Value, class KeyOf>
void make_items(const Parallel& par, const Value* values, std::size_t n, bool descending,
                radix::Item<Key>* items, KeyOf key_of) {
  const Key flip = descending ? static_cast<Key>(~Key{0}) : Key{0};
  parallel_for(par, n, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i)
      items[i] = {static_cast<Key>(key_of(values[i]) ^ flip), static_cast<std::uint32_t>(i)};
  });
}

}  // namespace

Vector rank(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd) {
  const std::size_t n = v.length;
  const bool descending = op == vcode::Op::RankDown;
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw Error(std::string(vcode::spelling(op)) + ": vector too long to rank");
  if (v.type == Type::Int) {
    Scratch<radix::Item<std::uint32_t>> items(n);
    make_items(ctx.par, elements<I32>(v), n, descending, items.data(),
               [](I32 x) { return cvl_sem::int_rank_key(x); });
    Vector out = reuse_or_allocate(std::move(v), Type::Int, n);  // the items hold the values now
    rank_items(ctx.par, sd, items.data(), elements<I32>(out));
    return out;
  }
  if (v.type != Type::Float) throw_not_defined(op, v.type);
  Scratch<radix::Item<std::uint64_t>> items(n);
  if (ctx.float_rank == FloatRankOrder::Legacy)
    make_items(ctx.par, elements<double>(v), n, descending, items.data(),
               [](double x) { return cvl_sem::legacy_float_rank_key(x); });
  else
    make_items(ctx.par, elements<double>(v), n, descending, items.data(),
               [](double x) { return cvl_sem::float_rank_key(x); });
  Vector out = allocate(Type::Int, n);
  rank_items(ctx.par, sd, items.data(), elements<I32>(out));
  return out;
}

}  // namespace cvl::cpu
