// The permute family (spec/CVL.md §3.5, VCODE.md §6.7): scatters (PERMUTE, FPERMUTE, DPERMUTE,
// DFPERMUTE) walk the source segments, gathers (BPERMUTE, BFPERMUTE) the destination segments.
// Only bits move, so each loop is instantiated per element width, not per type. Every index
// that is used is checked against the length of the segment it addresses.
//
// Collisions (two sources writing one position, invalid in NESL programs but possible in
// hand-written VCODE): the highest source index wins, as in the reference (spec/CVL.md §3.5).
// Sequentially that is the loop's order; with several threads each thread owns a range of the
// destination and writes it in source order (scatter_by_destination).
#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "families/families.hpp"
#include "families/index_loops.hpp"
#include "families/index_runs.hpp"
#include "pending/gather_composition.hpp"
#include "pending/lazy_elementwise.hpp"
#include "simd/gather.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using I32 = std::int32_t;
using Flag = std::uint8_t;

// out[start + idx[j - begin]] = values[j] for the (flagged) elements j in [begin, end), a run of
// one source segment whose destination segment starts at `start` and has `length` elements,
// for those whose target lies in [lo, hi), in source order; returns false at the first bad
// index, recorded in `fault`. A target outside [lo, hi) is stored to a dummy instead: no branch
// to mispredict on random targets. kWhole: [lo, hi) is the whole destination (one thread), no
// test at all.
template <class Bits, bool kFlagged, bool kWhole>
bool scatter_run(std::size_t begin, std::size_t end, std::size_t start, std::uint32_t length,
                 const Bits* values, const I32* idx, const Flag* flags, Bits* out, std::size_t lo,
                 std::size_t hi, IndexFault& fault) {
  Bits discarded;
  std::size_t j = begin;
  if constexpr (kWhole && !kFlagged) {
    // A chunk at a time, checked and then moved (index_loops.hpp); a chunk with a bad index is
    // left to the loop below, which finds the first.
    while (j < end) {
      const std::size_t count = std::min(end - j, kIndexChunk);
      const I32* chunk = idx + (j - begin);
      if (!all_below(chunk, count, length)) break;
      scatter_unchecked(values + j, chunk, out + start, count);
      j += count;
    }
  }
  for (; j < end; ++j) {
    if constexpr (kFlagged)
      if (!flags[j]) continue;
    const auto at = static_cast<std::uint32_t>(idx[j - begin]);  // negative indices become huge
    if (at >= length) {
      fault = {j, idx[j - begin], length};
      return false;
    }
    const std::size_t target = start + at;
    if constexpr (kWhole)
      out[target] = values[j];
    else
      *(target - lo < hi - lo ? out + target : &discarded) = values[j];
  }
  return true;
}

// scatter_run over the whole of source segment k.
template <class Bits, bool kFlagged, bool kWhole>
bool scatter_segment(std::size_t k, const SegmentView& source, const SegmentView& dest, const Bits* values,
                     const I32* idx, const Flag* flags, Bits* out, std::size_t lo, std::size_t hi,
                     IndexFault& fault) {
  const std::size_t begin = source.start(k);
  return scatter_run<Bits, kFlagged, kWhole>(begin, source.start(k + 1), dest.start(k),
                                             static_cast<std::uint32_t>(dest.length(k)), values,
                                             idx + begin, flags, out, lo, hi, fault);
}

// Several threads: each owns a contiguous range of the destination and walks, in source order,
// the source segments whose destination segment can meet its range, writing only the targets in
// it. So the highest source wins as in the sequential loop, with no atomics and no extra memory.
// A segment whose targets span several ranges (one giant segment) is read by each of their
// threads: one range per thread keeps that to `team` reads of the indices. Every source segment
// is walked by at least one thread (an empty destination segment by the one its start falls in),
// so each bad index is seen; each thread stops at its first, and the lowest one is reported.
template <class Bits, bool kFlagged>
void scatter_by_destination(int team, const SegmentView& source, const SegmentView& dest,
                            const Bits* values, const I32* idx, const Flag* flags, Bits* out,
                            IndexFault& fault) {
  const auto ranges = static_cast<std::size_t>(team);
  run_blocks(team, ranges, [&](std::size_t b) {
    const std::size_t lo = block_begin(dest.total, b, ranges);
    const std::size_t hi = block_begin(dest.total, b + 1, ranges);
    const bool last = b + 1 == ranges;
    // The first segment ending at or after lo (one ending exactly there is walked needlessly).
    const SegOffset* ends = dest.offsets + 1;
    auto k = static_cast<std::size_t>(
        std::lower_bound(ends, ends + dest.segments, static_cast<SegOffset>(lo)) - ends);
    IndexFault local;
    for (; k < dest.segments && (dest.start(k) < hi || last); ++k)
      if (!scatter_segment<Bits, kFlagged, false>(k, source, dest, values, idx, flags, out, lo, hi,
                                                  local))
        break;
    fault.merge(local);
  });
}

// out[dest.start(k) + idx[j]] = values[j] for each (flagged) source element j of segment k.
// `checked`: one segment, every index known good (an earlier scatter by it checked them all).
template <class Bits, bool kFlagged>
void scatter(const Parallel& par, Op op, const SegmentView& source, const SegmentView& dest,
             const Bits* values, const I32* idx, const Flag* flags, Bits* out, bool checked) {
  IndexFault fault;
  const int team = par.team_for(source.total, kMemoryBoundThreshold);
  if (!kFlagged && checked && team <= 1) {
    scatter_unchecked(values, idx, out, source.total);
  } else if (team <= 1) {
    for (std::size_t k = 0; k < source.segments; ++k)
      if (!scatter_segment<Bits, kFlagged, true>(k, source, dest, values, idx, flags, out, 0,
                                                 dest.total, fault))
        break;
  } else {
    scatter_by_destination<Bits, kFlagged>(team, source, dest, values, idx, flags, out, fault);
  }
  if (fault.found()) throw_index_fault(op, fault);
}

// Whether idx[j] is j's offset in its segment for every j: a PERMUTE that leaves each element
// where it is (bh's splits whose flags all agree, segments of one element). Looked at a block at
// a time, so that a permute that moves something is found at its first block that does.
bool moves_nothing(const SegmentView& sd, const I32* idx) {
  constexpr std::size_t kBlock = 1024;
  for (std::size_t k = 0; k < sd.segments; ++k) {
    const std::size_t start = sd.start(k), end = sd.start(k + 1);
    for (std::size_t lo = start; lo < end; lo += kBlock) {
      const std::size_t hi = std::min(end, lo + kBlock);
      std::uint32_t differs = 0;  // no branch per element: the loop vectorizes
      for (std::size_t j = lo; j < hi; ++j)
        differs |= static_cast<std::uint32_t>(idx[j]) ^ static_cast<std::uint32_t>(j - start);
      if (differs != 0) return false;
    }
  }
  return true;
}

// out[j] = segment[idx[j]] for j in [lo, hi), unflagged positions zero bits; returns the first j
// whose index is outside [0, length), or hi. A function of its own, so that no pointer is
// reloaded after each store, as one captured by reference would be.
template <class Bits, bool kFlagged>
std::size_t gather_run(const Bits* segment, std::uint32_t length, const I32* idx,
                       const Flag* flags, Bits* out, std::size_t lo, std::size_t hi) {
  if constexpr (!kFlagged && (sizeof(Bits) == 4 || sizeof(Bits) == 8)) {
    static const simd::CheckedGatherFunction<Bits> wide = [] {
      if constexpr (sizeof(Bits) == 4) return simd::checked_gather32();
      else return simd::checked_gather64();
    }();
    if (wide) return wide(segment, length, idx, out, lo, hi);
  }
  std::size_t j = lo;
  if constexpr (!kFlagged) {  // as scatter_run does
    while (j < hi) {
      const std::size_t count = std::min(hi - j, kIndexChunk);
      if (!all_below(idx + j, count, length)) break;
      gather_unchecked(segment, idx + j, out + j, count);
      j += count;
    }
  }
  for (; j < hi; ++j) {
    if constexpr (kFlagged) {
      if (!flags[j]) {
        out[j] = 0;
        continue;
      }
    }
    auto at = static_cast<std::uint32_t>(idx[j]);
    if (at >= length) return j;
    out[j] = segment[at];  // out may be idx's memory: idx[j] is read first
  }
  return hi;
}

// out[j] = values[source.start(k) + idx[j]] for each destination element j of segment k;
// unflagged positions get zero bits (0, 0.0, F) and their index is not looked at.
template <class Bits, bool kFlagged>
void gather(const Parallel& par, Op op, const SegmentView& source, const SegmentView& dest,
            const Bits* values, const I32* idx, const Flag* flags, Bits* out) {
  IndexFault fault;
  for_each_part(par, dest, kMemoryBoundThreshold, [&](const Part& p, std::size_t) {
    IndexFault local;
    for_each_piece(dest, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      if (local.found()) return;
      const std::size_t bad = gather_run<Bits, kFlagged>(values + source.start(k),
                                                        static_cast<std::uint32_t>(source.length(k)),
                                                        idx, flags, out, lo, hi);
      if (bad < hi) local = {bad, idx[bad], static_cast<std::int64_t>(source.length(k))};
    });
    fault.merge(local);
  });
  if (fault.found()) throw_index_fault(op, fault);
}

// The permutes on one thread with their indices, or a scatter's values, read from a pending
// expression a block at a time (the context's evaluator's PendingBlocks), never stored: an
// INDEX's positions or an expression over them, a DIST's values. The same loops, the same
// checks, in the same order.

// One operand of such a permute: a vector's elements, or a pending expression's.
template <class T>
class BlockSource {
 public:
  BlockSource(const Context& ctx, const T* elements, LazyExpression* pending)
      : elements_(elements), pending_(pending ? ctx.evaluator->blocks(*pending) : nullptr) {}
  std::size_t block() const { return pending_ ? pending_->block() : SIZE_MAX; }
  // Elements [lo, hi): element j at [j] of the pointer returned, valid until the next call.
  const T* at(std::size_t lo, std::size_t hi) {
    if (!pending_) return elements_;
    return static_cast<const T*>(pending_->values(lo, hi)) - lo;
  }

 private:
  const T* elements_;
  std::unique_ptr<PendingBlocks> pending_;
};

// For each block [lo, hi) of `segments`' elements, in order: at_block(lo, hi), then
// piece(k, begin, end) for each piece [begin, end) of the block within segment k; stops at the
// first piece for which it returns false.
template <class Block, class Piece>
void for_each_piece_by_block(const SegmentView& segments, std::size_t block, Block&& at_block,
                             Piece&& piece) {
  std::size_t k = 0;  // the segment holding the block's first element
  for (std::size_t lo = 0; lo < segments.total; lo += block) {
    const std::size_t hi = std::min(lo + block, segments.total);
    at_block(lo, hi);
    while (k < segments.segments && segments.start(k + 1) <= lo) ++k;
    for (; k < segments.segments && segments.start(k) < hi; ++k) {
      if (!piece(k, std::max(lo, segments.start(k)), std::min(hi, segments.start(k + 1))))
        return;
      if (segments.start(k + 1) > hi) break;  // the segment goes on in the next block
    }
  }
}

template <class Bits, bool kFlagged>
void scatter_pending(Op op, const SegmentView& source, const SegmentView& dest,
                     BlockSource<Bits>& values, BlockSource<I32>& indices, const Flag* flags,
                     Bits* out) {
  IndexFault fault;
  const Bits* v = nullptr;
  const I32* idx = nullptr;
  for_each_piece_by_block(
      source, std::min(values.block(), indices.block()),
      [&](std::size_t lo, std::size_t hi) {
        v = values.at(lo, hi);
        idx = indices.at(lo, hi);
      },
      [&](std::size_t k, std::size_t begin, std::size_t end) {
        return scatter_run<Bits, kFlagged, true>(begin, end, dest.start(k),
                                                 static_cast<std::uint32_t>(dest.length(k)), v,
                                                 idx + begin, flags, out, 0, dest.total, fault);
      });
  if (fault.found()) throw_index_fault(op, fault);
}

template <class Bits, bool kFlagged>
void gather_pending(Op op, const SegmentView& source, const SegmentView& dest, const Bits* values,
                    BlockSource<I32>& indices, const Flag* flags, Bits* out) {
  IndexFault fault;
  const I32* idx = nullptr;
  for_each_piece_by_block(
      dest, indices.block(), [&](std::size_t lo, std::size_t hi) { idx = indices.at(lo, hi); },
      [&](std::size_t k, std::size_t begin, std::size_t end) {
        const std::size_t count = end - begin;
        const std::size_t bad = gather_run<Bits, kFlagged>(
            values + source.start(k), static_cast<std::uint32_t>(source.length(k)), idx + begin,
            kFlagged ? flags + begin : nullptr, out + begin, 0, count);
        if (bad == count) return true;
        fault = {begin + bad, idx[begin + bad], static_cast<std::int64_t>(source.length(k))};
        return false;
      });
  if (fault.found()) throw_index_fault(op, fault);
}

// Whether two views have the same segments.
bool same_segments(const SegmentView& a, const SegmentView& b) {
  return a.segments == b.segments && a.total == b.total &&
         std::equal(a.offsets, a.offsets + a.segments + 1, b.offsets);
}

// PERMUTE or DPERMUTE by runs, each a whole source segment: segment k copied into its
// destination segment, a default described rather than written (`fills[k * fill_step]` for
// segment k: one value for all, or one per segment) written around the run only.
template <class Bits>
void copy_runs_filling_around(const SegmentView& dest, const Bits* values, const IndexRuns& runs,
                              const Bits* fills, std::size_t fill_step, Bits* out) {
  std::size_t k = 0;  // the next destination segment not written
  auto fill_to = [&](std::size_t end) {
    for (; k < end; ++k) std::fill_n(out + dest.start(k), dest.length(k), fills[k * fill_step]);
  };
  runs.for_each([&](std::size_t segment, std::size_t from, std::size_t to, std::size_t n) {
    fill_to(segment);
    const Bits fill = fills[segment * fill_step];
    std::fill(out + dest.start(segment), out + to, fill);
    copy_run(values + from, n, out + to);
    std::fill(out + to + n, out + dest.start(segment + 1), fill);
    k = segment + 1;
  });
  fill_to(dest.segments);
}

// A PERMUTE or DPERMUTE by a pending INDEX of runs (IndexRuns), as copies; nothing otherwise.
std::optional<Vector> permute_by_runs(const Parallel& par, Op op, const SegmentView& source,
                                      const SegmentView& dest, PermuteOperands& operands) {
  const LazyExpression* expression = pending_expression(operands.indices);
  if (!expression) return std::nullopt;
  const std::optional<IndexRuns> runs = IndexRuns::of(*expression, source, dest);
  if (!runs) return std::nullopt;
  // Each run its whole segment: a PERMUTE's segments are as long as their destinations, so each
  // run starts at 0 and nothing moves.
  if (op == Op::Permute && runs->whole_segments()) return std::move(operands.values);
  // A DPERMUTE that writes every element where it is: the defaults are all overwritten.
  if (op == Op::DPermute && runs->moves_nothing(dest.total)) return std::move(operands.values);
  const Type type = operands.values.type;
  return with_element_bits(type, [&]<class Bits>() -> Vector {
    const Bits* values = elements<Bits>(operands.values);
    // Defaults of one value, or of a value per destination segment (a DIST), are written only
    // where no run lands when each run is its whole segment, not first in full.
    Bits one = 0;
    const Bits* fills = nullptr;
    std::size_t fill_step = 0;
    // Held to the end: it keeps the values per segment alive once the defaults are let go.
    std::shared_ptr<const SegmentValues> rule;
    if (op == Op::DPermute) {
      rule = segment_values_of(operands.defaults);
      if (const std::optional<std::uint64_t> same = uniform_bits(operands.defaults)) {
        one = static_cast<Bits>(*same);
        fills = &one;
      } else if (rule && same_segments(view(rule->segments), dest)) {
        fills = elements<Bits>(rule->values);
        fill_step = 1;
      }
    }
    // Described defaults let go of their memory first, so that the result may take it.
    if (fills) operands.defaults = {};
    Vector out = op == Op::Permute || fills ? allocate(type, dest.total)
                                            : unshared(par, std::move(operands.defaults));
    Bits* o = elements<Bits>(out);
    if (fills && runs->whole_segments()) {
      copy_runs_filling_around(dest, values, *runs, fills, fill_step, o);
      return out;
    }
    if (fills)
      for (std::size_t k = 0; k < dest.segments; ++k)
        std::fill_n(o + dest.start(k), dest.length(k), fills[k * fill_step]);
    runs->scatter(values, o);
    return out;
  });
}

// Whether a gather by runs reads its source many times over (each element about kReplications
// times or more, into one long segment): stored, its result would be that many copies of the
// source, while read where used it is the source alone, which stays in the cache as it is read.
// Only long runs (kLongRunMin), which FUSED reads where they lie: short ones (bh's cells, a few
// bodies each) would be gathered an element at a time by each reader.
bool replicates(const SegmentView& dest, const SegmentView& source, const IndexRuns& runs) {
  constexpr std::size_t kReplications = 8;
  return dest.segments == 1 && dest.total >= kLazyMin &&
         dest.total / kReplications >= std::max<std::size_t>(source.total, 1) &&
         dest.total >= kLongRunMin * std::max<std::size_t>(runs.count(), 1);
}

// A BPERMUTE of several segments by a pending INDEX whose segments (pieces) lie each inside one
// destination segment, each counting by 1 from a start that leaves it room in the matching
// source segment: the copies of each instance's value for the elements of a nested
// apply-to-each, grouped by instance. The source positions are then the pieces' starts moved to
// their source segments: one gather of runs over a single source. Pending where the destination
// is wide (past the longest vector: streamed where it is read) or reads the source many times
// over; copied run by run otherwise. Nothing when the index is not such (the op's own loops then
// check it).
template <class PieceView, class DestView>
std::optional<Vector> gather_grouped_runs(const Context& ctx, PermuteOperands& operands,
                                          const LazyExpression& expression, const Segdes& pieces_segdes,
                                          const PieceView& pieces, const DestView& dest) {
  using Kind = vcode::SuperOpNode::Kind;
  const std::vector<vcode::SuperOpNode>& nodes = expression.definition.nodes;
  const vcode::SuperOpNode& root = nodes.back();
  const SegmentView source = view(operands.source_segdes);
  if (pieces.total != dest.total || source.segments != dest.segments) return std::nullopt;
  auto per_piece = [&](std::uint8_t a) -> std::optional<std::pair<const I32*, std::size_t>> {
    const vcode::SuperOpNode& n = nodes[root.args[a]];
    if (n.kind == Kind::Constant) return std::pair{&n.int_value, std::size_t{0}};
    if (n.kind != Kind::Operand) return std::nullopt;
    const Vector& v = expression.operands[n.operand].vector;
    if (v.length != pieces.segments) return std::nullopt;
    return std::pair{elements<I32>(v), std::size_t{1}};
  };
  const auto starts = per_piece(0), strides = per_piece(1);
  if (!starts || !strides) return std::nullopt;
  Vector moved = allocate(Type::Int, pieces.segments);
  I32* at = elements<I32>(moved);
  std::size_t k = 0;
  for (std::size_t p = 0; p < pieces.segments; ++p) {
    const std::size_t first = pieces.start(p), n = pieces.length(p);
    const I32 start = starts->first[p * starts->second];
    at[p] = 0;
    if (n == 0) continue;
    while (k < dest.segments && dest.start(k + 1) <= first) ++k;
    if (k == dest.segments || first + n > dest.start(k + 1)) return std::nullopt;
    if (n > 1 && strides->first[p * strides->second] != 1) return std::nullopt;
    const std::size_t room = source.length(k);
    if (n > room || static_cast<std::uint32_t>(start) > room - n) return std::nullopt;
    at[p] = static_cast<I32>(source.start(k) + static_cast<std::uint32_t>(start));
  }
  const Type type = operands.values.type;
  const bool wide = dest.total > kMaxVectorLength;
  const bool many_times = dest.total / 8 >= std::max<std::size_t>(source.total, 1) &&
                          dest.total >= kLongRunMin * std::max<std::size_t>(pieces.segments, 1);
  if (wide || (dest.total >= kLazyMin && many_times)) {
    Vector ones = uniform_vector({}, Type::Int, pieces.segments, 1);
    std::optional<Vector> positions = lazy_index(ctx, moved, ones, pieces_segdes, pieces.total);
    if (!positions) return std::nullopt;
    return pending_gather(ctx, std::move(operands.values), std::move(*positions));
  }
  return with_element_bits(type, [&]<class Bits>() -> Vector {
    const Bits* values = elements<Bits>(operands.values);
    Vector out = allocate(type, dest.total);
    Bits* o = elements<Bits>(out);
    for (std::size_t p = 0; p < pieces.segments; ++p)
      if (pieces.length(p) != 0) copy_run(values + at[p], pieces.length(p), o + pieces.start(p));
    return out;
  });
}

// gather_grouped_runs for a BPERMUTE whose indices are a pending INDEX, the descriptors wide or not.
std::optional<Vector> grouped_gather(const Context& ctx, PermuteOperands& operands) {
  const LazyExpression* expression = pending_expression(operands.indices);
  if (!expression) return std::nullopt;
  const vcode::SuperOpNode& root = expression->definition.nodes.back();
  if (root.kind != vcode::SuperOpNode::Kind::Index) return std::nullopt;
  const vcode::SuperOpNode& pieces_node = expression->definition.nodes[root.args[2]];
  if (pieces_node.kind != vcode::SuperOpNode::Kind::Operand) return std::nullopt;
  const Segdes pieces = expression->operands[pieces_node.operand].segdes;
  const Segdes& dest = operands.dest_segdes;
  if (dest.segments.get() < 2 || is_wide(operands.source_segdes)) return std::nullopt;
  auto with_dest = [&](const auto& pieces_view) -> std::optional<Vector> {
    if (is_wide(dest)) return gather_grouped_runs(ctx, operands, *expression, pieces, pieces_view, wide_view(dest));
    return gather_grouped_runs(ctx, operands, *expression, pieces, pieces_view, view(dest));
  };
  if (is_wide(pieces)) return with_dest(wide_view(pieces));
  return with_dest(view(pieces));
}

}  // namespace

[[noreturn]] void throw_index_fault(Op op, const IndexFault& fault) {
  throw Error(index_fault_message(vcode::spelling(op), fault.index, fault.position, fault.length));
}

Vector permute(const Context& ctx, Op op, PermuteOperands&& operands) {
  // Composed positions would be as long as a wide destination: its gathers stream instead.
  const bool wide = op != Op::Permute && is_wide(operands.dest_segdes);
  if (ctx.lazy && !wide)
    if (std::optional<Vector> out = composed_gather(ctx, op, operands, &permute))
      return std::move(*out);
  if (ctx.lazy && op == Op::BPermute)
    if (std::optional<Vector> out = grouped_gather(ctx, operands)) return std::move(*out);
  const Parallel& par = ctx.par;
  const SegmentView source = view(operands.source_segdes);
  const SegmentView dest = op == Op::Permute ? source : view(operands.dest_segdes);
  const Type type = operands.values.type;
  if (ctx.lazy && op == Op::BPermute) {
    // A gather of runs (a split's parts, subsequences): copies, the whole of one segment none.
    if (const LazyExpression* expression = pending_expression(operands.indices))
      if (const auto runs = IndexRuns::of(*expression, dest, source))
        return with_element_bits(type, [&]<class Bits>() -> Vector {
          if (runs->moves_nothing(dest.total)) return std::move(operands.values);
          if (const std::optional<std::uint64_t> bits = uniform_bits(operands.values))
            return uniform_vector({}, type, dest.total, *bits);
          // A source read many times over (a free sequence read in place by each instance of
          // an all-pairs computation): the runs checked, the gather waits for its readers.
          if (replicates(dest, source, *runs))
            return pending_gather(ctx, std::move(operands.values), std::move(operands.indices));
          Vector out = allocate(type, dest.total);
          runs->gather(elements<Bits>(operands.values), source.total, elements<Bits>(out));
          return out;
        });
    if (std::optional<Vector> out = lazy_gather(ctx, operands)) return std::move(*out);
  }
  // PERMUTE or DPERMUTE by runs (an append's parts, subsequences moved whole): copies.
  if (ctx.lazy && (op == Op::Permute || op == Op::DPermute))
    if (std::optional<Vector> out = permute_by_runs(par, op, source, dest, operands))
      return std::move(*out);
  // Indices pending that nothing else holds (an INDEX, an expression over one): read a block at
  // a time where they are used, never stored, on one thread. Storing them to share the permute
  // out among threads writes and reads back as much memory as the permute moves, and under load
  // (other processes on the cores) the second thread is not there to pay for it.
  std::unique_ptr<LazyExpression> pending;
  if (ctx.lazy)
    if ((pending = take_pending(operands.indices))) operands.indices = {};
  const I32* idx = pending ? nullptr : elements<I32>(operands.indices);
  // The values are the result, pending or not: nothing is written or computed.
  if (op == Op::Permute && idx && moves_nothing(source, idx)) return std::move(operands.values);
  const Flag* flags = elements<Flag>(operands.flags);
  // A scatter's values pending that nothing else holds (a DIST, an elementwise result): made a
  // block at a time as they are scattered, on one thread likewise.
  const bool gathers = vcode::info(op).shape == vcode::Shape::Gather;
  std::unique_ptr<LazyExpression> pending_values;
  if (ctx.lazy && !gathers)
    if ((pending_values = take_pending(operands.values))) operands.values = {};
  return with_element_bits(type, [&]<class Bits>() -> Vector {
    const Bits* values = pending_values ? nullptr : elements<Bits>(operands.values);
    // The ops.def row says which way the indices point and which operands there are.
    const bool flagged = vcode::permute_has_flags(op);
    auto run = [&](Bits* out) {
      if (pending || pending_values) {
        BlockSource<I32> indices(ctx, idx, pending.get());
        if (gathers) {
          if (flagged)
            gather_pending<Bits, true>(op, source, dest, values, indices, flags, out);
          else
            gather_pending<Bits, false>(op, source, dest, values, indices, flags, out);
          return;
        }
        BlockSource<Bits> moved(ctx, values, pending_values.get());
        if (flagged)
          scatter_pending<Bits, true>(op, source, dest, moved, indices, flags, out);
        else
          scatter_pending<Bits, false>(op, source, dest, moved, indices, flags, out);
      } else if (gathers) {
        if (flagged)
          gather<Bits, true>(par, op, source, dest, values, idx, flags, out);
        else
          gather<Bits, false>(par, op, source, dest, values, idx, flags, out);
      } else if (flagged) {
        scatter<Bits, true>(par, op, source, dest, values, idx, flags, out, false);
      } else {
        // A tuple's fields moved by one index (a split's PERMUTE): the first checks them all.
        const std::optional<std::uint32_t> bound = indices_below(operands.indices);
        const bool checked = source.segments == 1 && bound && *bound <= dest.length(0);
        scatter<Bits, false>(par, op, source, dest, values, idx, flags, out, checked);
        if (source.segments == 1 && !checked)
          static_cast<Buffer*>(operands.indices.storage.get())
              ->set_indices_below(static_cast<std::uint32_t>(dest.length(0)));
      }
    };
    Vector out;
    if (gathers)
      out = reuse_or_allocate(std::move(operands.indices), type, dest.total);
    else if (vcode::permute_has_defaults(op))  // the default's memory, at its last use
      out = unshared(par, std::move(operands.defaults));
    else if (flagged)  // unwritten positions are 0
      out = allocate_zeroed(par, type, dest.total);
    else
      out = allocate(type, dest.total);
    run(elements<Bits>(out));
    // Every index was good: a later gather by the same index over one segment needs no check
    // (lazy_gather). An index reused as the result is gone (moved from).
    if (op == Op::BPermute && dest.segments == 1)
      if (auto* index = static_cast<Buffer*>(operands.indices.storage.get()))
        index->set_indices_below(static_cast<std::uint32_t>(source.length(0)));
    return out;
  });
}

}  // namespace cvl::cpu
