// Vectors whose elements are computed when first read (VCODE's side of what fcode-opt's fusion
// does ahead of time for FCODE), as cvl-cpu's pending results (cvl-cpu/src/pending/
// lazy_elementwise.hpp) do on the host.
//
// An elementwise op that cannot trap, an INDEX or a DIST over long vectors returns a vector
// without a buffer that holds its expression: a superoperator definition (vcode/superop.hpp) over
// its operands. An op on such a vector that nothing else holds takes the expression into its own
// (pending_builder.hpp), so a chain of ops becomes one FUSED evaluation: one launch of the
// interpreter kernel (or of its compiled kernel on a GPU) that reads each input once and writes
// one result. A reduction of such a vector puts the fold at the root of the expression: a long
// one is then evaluated in chunks and folded (fused.hpp: StreamedFold), never stored, and a DIST
// or INDEX over a descriptor longer than any vector (longest_descriptor_total) exists only so.
// A cheap generator (an INDEX, a DIST, and a few cheap ops over them) that several ops read is
// made again in each reader rather than stored. A DIST or INDEX whose walk would record its
// descriptor's per-element index, and short enough to store, runs at once instead: the later
// uses of the descriptor read that index rather than build it with a launch of their own.
//
// Whatever reads the elements themselves (a device pointer, the host copy, a download) computes
// the expression first, through the backend's FUSED path, and the vector is then an ordinary
// one (Residency::device_pointer). INT / and % run at once, so that their errors are raised by
// their own instruction. The values are the ops' own: the same scalar functions per element. So
// that a pending result never holds more memory than the ops one at a time would, it is computed
// at once where it would be the only holder of two or more vectors as long. START_TIMER and
// STOP_TIMER compute what is pending (complete_pending_work); --eager turns all this off.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "cvl/backend.hpp"
#include "platform.hpp"
#include "tuning.hpp"
#include "vcode/superop.hpp"

namespace cvl::CVL_CUDA_NS {

struct FoldGroup;

// A pending result: `definition` (its root elementwise, DIST or INDEX) over `operands` ($k is
// operands[k]), evaluated at `domain` elements.
struct PendingExpression {
  vcode::SuperOp definition;
  std::vector<FusedOperand> operands;
  Length domain;
  // The longest chain of pending operands below this one that other handles hold too (each
  // computed when this one is, first).
  std::size_t depth = 0;
  // The reductions of this result that wait to be computed together (fold_group.hpp).
  std::weak_ptr<FoldGroup> fold_group;
};

// Ops over at least this many elements wait: below it the bookkeeping costs about what a launch
// saves (and the host path takes the shortest).
inline constexpr std::size_t kPendingMin = std::size_t{1} << 14;
// An expression's nodes and operands at most, so that the interpreter kernel holds it with a
// fold at its root (cuda_tuning::kMaxFusedNodes, kMaxFusedOperands): past them, an operand
// is computed on its own and read as a vector.
inline constexpr std::size_t kPendingMaxNodes = cuda_tuning::kMaxFusedNodes - 4;
inline constexpr std::size_t kPendingMaxOperands = cuda_tuning::kMaxFusedOperands - 2;
// Pending operands held elsewhere below an expression at most: past it, such an operand is
// computed at once, so that computing an expression never recurses deeply.
inline constexpr std::size_t kPendingMaxDepth = 16;
// Nodes computed at most (INDEX, DIST, cheap elementwise ops) in a generator that each reader
// makes again rather than read stored: a store and a load cost about three such passes.
inline constexpr std::size_t kRecomputeMaxNodes = 3;

}  // namespace cvl::CVL_CUDA_NS
