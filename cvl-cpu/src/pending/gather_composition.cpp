#include "pending/gather_composition.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

#include "memory/index_bound.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;

// A vector's elements as they were when seen: the handle (not kept alive) and its version.
struct Seen {
  std::weak_ptr<Storage> storage;
  std::uint64_t version = 0;

  static Seen of(const Vector& v) {
    const auto* buffer = static_cast<const Buffer*>(v.storage.get());
    return {v.storage, buffer ? buffer->version() : 0};
  }
  bool same(const Vector& v) const {
    const auto* buffer = static_cast<const Buffer*>(v.storage.get());
    return buffer && storage.lock() == v.storage && buffer->version() == version;
  }
};

// A segment descriptor as seen: descriptors are never written once made, but a program may make
// one for each field it moves, so they are compared by their segments. A short one is kept alive
// for that; a long one only while something else holds it.
class SeenSegments {
 public:
  SeenSegments() = default;
  explicit SeenSegments(const Segdes& sd) : weak_(sd.storage) {
    if (sd.segments.get() <= kKeptSegments) kept_ = sd.storage;
  }
  bool same(const Segdes& sd) const {
    const std::shared_ptr<Storage> storage = weak_.lock();
    if (storage == sd.storage) return true;
    if (!storage || !sd.storage || is_wide(Segdes{0, 0, storage}) || is_wide(sd)) return false;
    const SegmentView a = view(Segdes{0, 0, storage}), b = view(sd);
    return a.segments == b.segments &&
           std::equal(a.offsets, a.offsets + a.segments + 1, b.offsets);
  }

 private:
  static constexpr std::size_t kKeptSegments = 1024;
  std::weak_ptr<Storage> weak_;
  std::shared_ptr<Storage> kept_;
};

// The positions composed lately, by op, positions, index and segment descriptors: the fields
// moved by one index find them here, one after another.
struct Composition {
  Op op = Op::BPermute;
  Seen positions, index;
  SeenSegments source_segdes, dest_segdes;
  Seen result;
  std::size_t result_length = 0;
};

// A few entries found by a predicate, the oldest replaced first.
template <class Entry>
class RecentEntries {
 public:
  template <class Match>
  std::optional<Vector> find(Match&& match) {
    std::lock_guard lock(mutex_);
    for (const Entry& e : entries_) {
      if (!match(e)) continue;
      Vector result{Type::Int, e.result_length, e.result.storage.lock()};
      if (e.result.same(result)) return result;
    }
    return std::nullopt;
  }

  void add(Entry entry) {
    std::lock_guard lock(mutex_);
    entries_[next_] = std::move(entry);
    next_ = (next_ + 1) % entries_.size();
  }

 private:
  std::mutex mutex_;
  std::array<Entry, 8> entries_;
  std::size_t next_ = 0;
};

template <class Entry>
RecentEntries<Entry>& recent() {
  static auto* const instance = new RecentEntries<Entry>;  // never destroyed
  return *instance;
}

std::optional<Vector> find_composition(Op op, const Vector& positions,
                                       const PermuteOperands& operands) {
  return recent<Composition>().find([&](const Composition& c) {
    return c.op == op && c.positions.same(positions) && c.index.same(operands.indices) &&
           c.source_segdes.same(operands.source_segdes) && c.dest_segdes.same(operands.dest_segdes);
  });
}

// Each element's segment number: the position of its value in a DIST over `descriptor`.
Vector segment_numbers(const Segdes& descriptor) {
  auto* storage = static_cast<SegdesStorage*>(descriptor.storage.get());
  const SegmentView sd = view(descriptor);
  if (storage->segment_numbers) return {Type::Int, sd.total, storage->segment_numbers};
  Vector numbers = allocate(Type::Int, sd.total);
  std::int32_t* out = elements<std::int32_t>(numbers);
  for (std::size_t k = 0; k < sd.segments; ++k)
    std::fill(out + sd.start(k), out + sd.start(k + 1), static_cast<std::int32_t>(k));
  storage->segment_numbers = numbers.storage;
  return numbers;
}

// A DIST of a short vector of values per segment, pending (lazy_distribute) or described
// (SegmentValues), as the gather it is: those values read at each element's segment number.
std::optional<ShortGather> short_distribute_of(const Vector& v) {
  if (const std::shared_ptr<const SegmentValues> rule = segment_values_of(v)) {
    if (rule->values.length > kShortGatherSource) return std::nullopt;
    return ShortGather{rule->values, segment_numbers(rule->segments)};
  }
  std::optional<SegmentValues> rule = pending_distribute_of(v);
  if (!rule || rule->values.length > kShortGatherSource) return std::nullopt;
  return ShortGather{std::move(rule->values), segment_numbers(rule->segments)};
}

// A DIST of a pending gather's positions, by positions and descriptor: the fields of a tuple
// gathered by one index and spread over one descriptor share it.
struct DistributedPositions {
  Seen positions;
  SeenSegments segments;
  Seen result;
  std::size_t result_length = 0;
};

}  // namespace

std::optional<Vector> composed_gather(const Context& ctx, Op op, PermuteOperands& operands,
                                      PermuteFunction permute) {
  if (op != Op::BPermute && op != Op::Permute) return std::nullopt;
  const std::size_t n =
      op == Op::Permute ? operands.values.length.get() : operands.dest_segdes.total.get();
  if (n < kLazyMin) return std::nullopt;  // short results: computing costs less than the bookkeeping
  std::optional<ShortGather> gathered = short_gather_of(operands.values);
  if (!gathered) gathered = short_distribute_of(operands.values);
  if (!gathered) return std::nullopt;
  std::optional<Vector> positions = find_composition(op, gathered->positions, operands);
  if (!positions) {
    Composition entry{op,
                      Seen::of(gathered->positions),
                      Seen::of(operands.indices),
                      SeenSegments(operands.source_segdes),
                      SeenSegments(operands.dest_segdes),
                      {},
                      0};
    // A gather writes every position; a PERMUTE by an index that is not a permutation leaves
    // some unwritten (their values are unspecified, but no source is to be read at them): then
    // the values move instead, by the index kept for them.
    const bool writes_all = op == Op::BPermute;
    PermuteOperands inner;
    inner.values = gathered->positions;
    inner.indices = writes_all ? std::move(operands.indices) : operands.indices;
    inner.source_segdes = operands.source_segdes;
    inner.dest_segdes = operands.dest_segdes;
    positions = permute(ctx, op, std::move(inner));
    if (!writes_all && !check_indices_below(ctx.par, *positions, gathered->source.length))
      return std::nullopt;
    elements<std::byte>(*positions);  // written once, read by every field moved by this index
    entry.result = Seen::of(*positions);
    entry.result_length = positions->length;
    recent<Composition>().add(std::move(entry));
  }
  operands.values = {};
  return pending_gather(ctx, std::move(gathered->source), std::move(*positions));
}

std::optional<Vector> distributed_gather(const Context& ctx, Vector& values, const SegmentView& sd,
                                        const Segdes& descriptor, DistributeFunction distribute) {
  if (sd.total < kLazyMin) return std::nullopt;
  std::optional<ShortGather> gathered = short_gather_of(values);
  if (!gathered) return std::nullopt;
  std::optional<Vector> positions = recent<DistributedPositions>().find(
      [&](const DistributedPositions& e) {
        return e.positions.same(gathered->positions) && e.segments.same(descriptor);
      });
  if (!positions) {
    DistributedPositions entry{Seen::of(gathered->positions), SeenSegments(descriptor), {}, 0};
    positions = distribute(ctx, std::move(gathered->positions), sd, descriptor);
    elements<std::byte>(*positions);  // written once, read by every field spread over it
    entry.result = Seen::of(*positions);
    entry.result_length = positions->length;
    recent<DistributedPositions>().add(std::move(entry));
  }
  values = {};
  return pending_gather(ctx, std::move(gathered->source), std::move(*positions));
}

}  // namespace cvl::cpu
