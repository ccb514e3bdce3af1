// Several reductions and scans of one pending result in one pass that never stores it. A pending
// result that is not cheap to recompute and that something else still holds (ln of an INDEX, read
// by a max and a min, by a sum and a sum of squares, or by a sum and a scan) would be computed
// and stored by its first reader, for the others to read back. Instead the reduction or scan is
// left pending in the result's fold group, and so is one of an expression over the result (the
// squares) while the result is pending and held elsewhere; a later one joins the group; and when
// any result of the group is first read (or the timers compute what is pending), every reduction
// and scan of the group is computed in one pass over the result's blocks (fused_folds: each the
// same fold over the same parts as alone, so the same bits; a scan writes its own result, whose
// memory it takes when it joins, so that running out of it is the scan's error as before).
// Where that pass would serve one reader while something else still holds the result, the result
// is computed and stored as before, for them to read. A group holds the result and the
// expressions over it until it is computed: no more than the readers' operands (an expression
// joins only where it is not the only holder of a vector as long, lazy_elementwise.hpp's memory
// rule). A result over a wide descriptor (past the longest vector: storage.hpp's is_wide) is
// folded so too, each reduction's segments carried across the blocks as a reduction alone
// streams them; a scan of one is refused, as its result would be as long.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "memory/pending_elements.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {

// The pending reductions of one pending result (LazyExpression::fold_group).
struct FoldGroup {
  struct Fold {
    vcode::Op op;
    Type type;
    Segdes segments;
    // What it folds, an expression over `values` (the group's result), or null: `values` itself.
    std::unique_ptr<LazyExpression> over;
    // A scan's result, its memory taken when the scan joined; nothing for a reduction.
    Vector scanned = {};
  };

  // Computes every reduction and scan of the group, completing the pending results of the
  // others, and returns fold `wanted`'s values.
  Vector compute(std::size_t wanted);
  // How many handles on `values` are the group's own.
  long own_holds() const;

  const Context* ctx = nullptr;
  Vector values;  // the pending result, held until the group is computed
  std::vector<Fold> folds;
  std::vector<std::weak_ptr<Storage>> results;  // folds[k]'s pending result
  bool computed = false;
};

// A reduction's or scan's result that waits for its fold group.
struct PendingFold final : PendingElements {
  Vector compute(const Storage* self) override;

  std::shared_ptr<FoldGroup> group;
  std::size_t index = 0;
};

// Reductions and scans in one group at most: past it, one runs as it would without groups.
inline constexpr std::size_t kFoldGroupMax = 8;

// The reduction or scan `op` of `v` over `sd` as a pending result of a fold group: of v's when v
// is a pending result held elsewhere too, else of the one of v's pending operands that is (v's
// expression then taken); `v` is consumed then. Nothing where neither is, where v's operands
// would be held longer than the ops one at a time hold them, or for a scan of a wide result.
std::optional<Vector> fold_in_group(const Context& ctx, vcode::Op op, Vector& v, const Segdes& sd);

// Whether `expression`, the result of a fold group still to compute, is held by that group alone
// (`holders` handles in all): compute_pending leaves it to the group's pass.
bool held_for_fold_group(const LazyExpression& expression, long holders);

}  // namespace cvl::cpu
