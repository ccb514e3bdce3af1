// Elementwise ops on long vectors, computed when their result is first read rather than when
// they run: what fcode-opt's fusion does ahead of time for FCODE, done at run time for VCODE.
//
// An elementwise op whose operands are long returns a vector without memory that holds its
// expression: a superoperator definition (vcode/superop.hpp) over the operands. An elementwise op
// on such a vector that nothing else holds takes its expression into its own, so a chain such as
// quickhull's (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) becomes one FUSED pass (fused.cpp)
// that reads each input once and writes one result, where the ops one at a time write and read
// back every intermediate. A result that is dropped unread is never computed.
//
// The values are the unfused ops' to the bit: the FUSED evaluator applies the same scalar (or, in
// fast mode, the same vector) functions in the same order per element. Ops that can fail (INT /
// and %) run at once, so that an error is raised by the instruction that causes it. So that a
// pending expression never holds more memory than the ops one at a time would, it is computed at
// once when it would be the only holder of two or more full-length vectors (one of them is where
// the result goes, as an op reuses its operand at its last use). The timers compute what is
// pending (compute_pending); the profile and traces leave it pending, as a run without them does.
//
// A pending result that several readers read is computed once and stored, for each to read
// back, unless those readers are reductions and scans (fold_group.hpp: they fold it together in
// one pass), or it is a cheap generator (cheap_to_recompute: INDEX, DIST, constants and
// bandwidth-bound elementwise ops over them, such as float(i) for i in an INDEX, at most
// kRecomputeMaxNodes of them, reading nothing at each element): a reader other than its last
// then copies its definition into its own and makes the values again, so that none is stored
// (ln's argument check and the sum of the logs both read float(i)). Storing writes each element
// out and reads it back through memory; each node made again is a pass over a block in the
// cache, and the copy reads only descriptors and values per segment, which the original holds
// too. The values are the same bits: the same scalar functions over the same inputs. So is a
// generator that gathers a short source at positions it makes (kRegenerateMaxNodes), whatever
// its ops cost: it is as long as the pairs of an all-pairs computation.
//
// A BPERMUTE over one segment by an index that an earlier BPERMUTE found good for a source as
// long (Buffer::indices_below: bh gathers many fields by one index) is pending too: a Gather node
// (vcode/superop.hpp) reads its source at the index's positions, so a gathered vector that only
// feeds elementwise ops is never stored. A first BPERMUTE by an index runs at once, checking as
// it gathers: a pass to check first would cost about what the pending result saves. But for a
// short source (kShortGatherSource) the index is checked in a pass of its own and the gather
// waits: gathers and permutes of it then move only its positions (gather_composition.hpp). A
// BPERMUTE by an INDEX of long runs (kLongRunMin) that reads its source many times over (each
// instance of an all-pairs computation or of a matrix product reading a free sequence in place)
// waits too, its runs checked (permute.cpp): its readers read the source, never its copies.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cvl/backend.hpp"
#include "memory/pending_elements.hpp"
#include "memory/storage.hpp"
#include "pending/context.hpp"
#include "vcode/superop.hpp"

namespace cvl::cpu {

struct FoldGroup;

// A pending result: `definition` over `operands` ($k is operands[k]), `domain` elements. The
// pending elements of a buffer (memory/pending_elements.hpp), with a fold group's reductions
// (fold_group.hpp).
struct LazyExpression final : PendingElements {
  // Computed with the pending results that share its operands (compute_in_group).
  Vector compute(const Storage* self) override;

  const Context* ctx = nullptr;
  vcode::SuperOp definition;
  std::vector<FusedOperand> operands;
  std::size_t domain = 0;
  // Over a block of a longer descriptor (SegdesStorage::streamed_total): that total. Such an
  // expression is only streamed into a reduction; computed as elements, it is refused.
  std::uint64_t streamed_total = 0;
  // The longest chain of pending operands below this one (operands held elsewhere that were not
  // computed yet): computing reads them first, recursively.
  std::size_t depth = 0;
  // The reductions of this result left pending, to compute in one pass (fold_group.hpp).
  mutable std::weak_ptr<FoldGroup> fold_group;
};

// Elementwise ops on at least this many elements are computed when first read: below it the
// bookkeeping costs about what a pass over the elements does.
inline constexpr std::size_t kLazyMin = std::size_t{1} << 14;
// Nodes at most in one pending expression (each computation counted once, as a Builder writes
// it): past it, a pending operand is computed on its own. Black-scholes's CND is about 60
// distinct nodes (435 as fcode-opt writes the tree); at 48 its FUSED calls ran at once and
// stored what the next call read back.
inline constexpr std::size_t kLazyMaxNodes = 128;
// Nodes computed at most (INDEX, DIST, elementwise) in an expression that each reader makes
// again rather than read stored: a store and a load cost about as much as three such passes.
inline constexpr std::size_t kRecomputeMaxNodes = 3;
// Nodes computed at most in a generator that reads a short source at positions it makes (a
// free sequence read in place by each instance of an all-pairs computation: a gather at an
// INDEX, with DISTs, INDEX, and elementwise ops that cannot trap over them), made again by each
// reader whatever its ops cost: stored, it would take memory in proportion to the pairs (the
// potential's terms, read by sqrt's check, the division's check and the sum).
inline constexpr std::size_t kRegenerateMaxNodes = 24;
// Pending operands below a pending expression at most: past it, the operand is computed at once.
inline constexpr std::size_t kLazyMaxDepth = 16;

// The result of `op` as a pending expression over `operands` (which it consumes), or nothing
// when the op runs at once (short vectors, an INT division). The result may also be computed
// already, when pending would hold more memory than computing.
std::optional<Vector> lazy_elementwise(const Context& ctx, vcode::Op op, Type type,
                                       std::span<Vector> operands);

// A BPERMUTE (unflagged) as a pending Gather over `operands` (which it then consumes), or
// nothing when it runs at once: short results, an index not known to be good for this source,
// several segments (their starts would cost a DIST at each element).
std::optional<Vector> lazy_gather(const Context& ctx, PermuteOperands& operands);

// An INDEX over `descriptor` (`total` elements, its starts and strides one per segment) as a
// pending expression: its values are a function of the segment and the offset in it, cheaper to
// compute where they are read than to store (the positions a permute writes to, an elementwise
// op's operand). Nothing when it runs at once (short). Consumes the operands then.
std::optional<Vector> lazy_index(const Context& ctx, Vector& starts, Vector& strides,
                                 const Segdes& descriptor, std::size_t total);

// A DIST of `values` (one per segment of `descriptor`, `total` elements) as a pending
// expression, like lazy_index: each segment's value written where it is read. Nothing when it
// runs at once (short); consumes `values` then.
std::optional<Vector> lazy_distribute(const Context& ctx, Vector& values, const Segdes& descriptor,
                                      std::size_t total);

// A RAND of `n` draws of one bound (not 0) as a pending expression: a Random node (vcode/
// superop.hpp) over a copy of `stream` as it is now, which then moves on past the n draws, so
// that the values are drawn where they are read (an I_TO_F of them, a pack of points inside a
// circle) and never stored on their own. Nothing when the RAND runs at once (short).
std::optional<Vector> lazy_random(const Context& ctx, RandomStream& stream, std::int32_t bound,
                                  std::size_t n);

// The stream a Random node's operand holds (lazy_random's layout).
RandomStream saved_stream(const std::byte* operand);

// Gathers from a source short enough to stay in the cache (bh's bodies and cells, gathered into
// one vector per field and interaction): such a pending gather is never computed for another
// gather, a permute or an elementwise op, which read its source at their own positions instead
// (gather_composition.hpp).
inline constexpr std::size_t kShortGatherSource = std::size_t{1} << 16;

// Runs at least this long on average (a gather at an INDEX that counts by 1 from a start per
// segment) are read where they lie: a copy per piece beats a gather per element.
inline constexpr std::size_t kLongRunMin = 32;

// A pending gather of a short source: that source, and the INT positions it is read at.
struct ShortGather {
  Vector source;
  Vector positions;
};
std::optional<ShortGather> short_gather_of(const Vector& v);

// The expression of a vector whose elements are not computed yet (not a pending reduction's),
// else nullptr.
const LazyExpression* pending_expression(const Storage* storage);
inline const LazyExpression* pending_expression(const Vector& v) {
  return pending_expression(v.storage.get());
}

// A pending DIST (lazy_distribute's): its values per segment (computed) and its descriptor.
std::optional<SegmentValues> pending_distribute_of(const Vector& v);

// `source` read at `positions` (INT, each known to be below source.length), pending.
Vector pending_gather(const Context& ctx, Vector source, Vector positions);

// A FUSED call (FCODE) whose root is elementwise, as a pending expression like the ops it
// fuses would make (its operands taken in as theirs are); nothing when it runs at once (short,
// a large definition). A fold or an INT division runs at once: computed here, its operands
// taken in as the ops' would be, when one needs no memory of its own (one value, a value per
// segment, a pending result nothing else holds), else nothing. Consumes the operands then.
std::optional<Vector> lazy_fused(const Context& ctx, const PreparedSuperOp& op,
                                 std::span<FusedOperand> operands, std::size_t domain);

// A scan or reduction (`op`) of a pending result nothing else holds, in one FUSED pass with the
// fold at its root: the values are folded as they are computed and never stored, as fcode-opt's
// map-reduce fusion does for FCODE (the fold is the unfused op's, segmented_fold.hpp, so the bits
// are too). Nothing when `v` is not such a result; `v` is consumed otherwise. A reduction sets
// `first_held_nan` as families.hpp's reduce does. A reduction or scan of such a result that is
// held elsewhere too and is not cheap to recompute joins its fold group instead (fold_group.hpp),
// as does one of an expression over such a result, unless it is to set `first_held_nan`.
std::optional<Vector> fold_pending(const Context& ctx, vcode::Op op, Vector& v, const Segdes& sd,
                                   bool* first_held_nan = nullptr);

// The plan of a definition made at run time, planned once for all calls (a program makes the
// same few).
std::shared_ptr<const PreparedSuperOp> plan_for(const Context& ctx, const vcode::SuperOp& op,
                                                std::vector<std::uint32_t> outputs = {});

// The pending expression of `v` when nothing else holds it, taken out of it (`v` is then left
// without elements and must be dropped); nullptr otherwise.
std::unique_ptr<LazyExpression> take_pending(Vector& v);

// Computes a pending expression; `first_held_nan` as fused.hpp's fused takes it.
Vector compute(LazyExpression& expression, bool* first_held_nan = nullptr);

// Computes `expression` in one pass with the pending results that share its pending operands,
// which that pass completes too, and with those of its pending operands only they read, which
// are never stored (shared_pending.cpp). `self`: the buffer whose expression it is
// (Buffer::bytes() computes through this), or nullptr for one computed where it is made.
Vector compute_in_group(LazyExpression& expression, const Storage* self);

// Computes every pending result still held: the backend's complete_pending_work(), which the VM
// calls at START_TIMER and STOP_TIMER (so the timed region holds the work of its own
// instructions, as fcode-opt fuses nothing across a timer).
void compute_pending();

}  // namespace cvl::cpu
