// Several reductions of one pending result (pending_expression.hpp) in one pass that never stores
// it, as cvl-cpu's fold groups (cvl-cpu/src/pending/fold_group.hpp) do on the host. A long pending
// result (streamed when reduced alone) that is not cheap to recompute and that something else
// still holds (a log read by a max and a min, or by a sum and a sum of squares) would be computed
// and stored by its first reduction, for the others to read back. Instead the reduction waits in
// the result's fold group, and so does a reduction of an expression over the result (the
// squares) that nothing else holds; later ones join. When any result of the group is first read
// (or the timers compute what is pending), the backend computes every reduction of the group in
// one pass over chunks of the result: each chunk evaluated once into a buffer, each expression
// over it evaluated from that buffer, and each reduction folded as a streamed reduction alone
// folds it (fused.hpp: StreamedFold), so the same values. Where that pass would serve one
// reduction while something else still holds the result, or where a reader has had the result
// computed meanwhile, each reduction runs as it would alone (the result stored, as before).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "handles.hpp"
#include "pending_expression.hpp"

namespace cvl::CVL_CUDA_NS {

// The reductions waiting for one pending result (PendingExpression::fold_group).
struct FoldGroup {
  struct Fold {
    vcode::Op op;
    Type type;
    Segdes segments;
    // What it folds: an expression over `values` (read at each element), or null: `values`.
    std::unique_ptr<PendingExpression> over;
  };

  // How many handles on `values` are the group's own.
  long own_holds() const;
  // Whether one pass over the values pays: they are still pending, and several reductions share
  // the pass or no other holder will read them.
  bool one_pass() const;

  Vector values;  // the pending result, held until the group is computed
  std::vector<Fold> folds;
  std::vector<std::weak_ptr<VectorStorage>> results;  // folds[k]'s result
  bool computed = false;
};

// Reductions in one group at most: past it, a reduction runs as it would without groups.
inline constexpr std::size_t kFoldGroupMax = 8;

// The reduction `op` of `v` over `sd` as a result waiting in a fold group: of `v`, a pending
// result held elsewhere too, longer than `stream_past` (but no longer than a vector) and not
// cheap to recompute; or of the expression of `v` (held only here) over such a result. Consumes
// `v` then. Nothing where neither is, or where the wait would hold a vector as long as `v` that
// nothing else holds.
std::optional<Vector> fold_in_group(vcode::Op op, Vector& v, const Segdes& sd,
                                    std::size_t stream_past);

}  // namespace cvl::CVL_CUDA_NS
