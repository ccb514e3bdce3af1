// What computes pending expressions: the FUSED evaluator (fused/fused.hpp), which runs the
// families' loops (folds, segment fills, RAND's draws) and so sits above them and this layer.
// Each backend's Context points at it. It is called once per expression computed, never per
// element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cvl/backend.hpp"
#include "vcode/superop.hpp"

namespace cvl::cpu {

struct Context;
struct LazyExpression;

// The values of a pending expression that maps, a block at a time on this thread, none of them
// stored (a permute's indices or values, read where it uses them).
class PendingBlocks {
 public:
  virtual ~PendingBlocks() = default;
  // The most elements one call of values() gives.
  virtual std::size_t block() const = 0;
  // Elements [lo, hi) (at most block() of them), element j at values[j - lo]; valid until the
  // next call. Blocks in increasing order cost least.
  virtual const void* values(std::size_t lo, std::size_t hi) = 0;
};

// One reduction or scan (`op`, over `segments`) of the values of node `node` of an elementwise
// plan, its root or one of its outputs (Evaluator::evaluate_folds).
struct FoldOfValues {
  vcode::Op op;
  Segdes segments;
  std::uint32_t node;
  // A scan's result, allocated by the caller (so that running out of memory is the scan's
  // instruction's error), written by the pass; the pass allocates it where not given.
  Vector scanned = {};
};

class Evaluator {
 public:
  // A superoperator planned once for evaluation (plan_for keeps the plans of pending
  // expressions). `outputs`: nodes of an elementwise definition also written out.
  virtual std::unique_ptr<PreparedSuperOp> prepare(const Context& ctx, const vcode::SuperOp& op,
                                                   std::vector<std::uint32_t> outputs) const = 0;
  // Its values over operands that obey its length rules; for a definition whose root reduces,
  // `first_held_nan` (where given) is set to whether the first segment held a NaN (families.hpp's
  // reduce).
  virtual Vector evaluate(const Context& ctx, const PreparedSuperOp& op,
                          std::span<FusedOperand> operands, std::size_t domain,
                          bool* first_held_nan) const = 0;
  // A plan prepared with outputs, in one pass: the values of each output node, in order, then
  // the root's.
  virtual std::vector<Vector> evaluate_outputs(const Context& ctx, const PreparedSuperOp& op,
                                               std::span<FusedOperand> operands,
                                               std::size_t domain) const = 0;
  // Reductions and scans of values of an elementwise plan (prepared with the folded nodes other
  // than its root as outputs) in one pass, none of the values stored (but in a scan's result):
  // each result the bits that evaluating that reduction or scan alone gives. Takes the scans'
  // results.
  virtual std::vector<Vector> evaluate_folds(const Context& ctx, const PreparedSuperOp& op,
                                             std::span<FusedOperand> operands, std::size_t domain,
                                             std::span<FoldOfValues> folds) const = 0;
  // The values of `expression`, which maps, a block at a time.
  virtual std::unique_ptr<PendingBlocks> blocks(LazyExpression& expression) const = 0;

 protected:
  ~Evaluator() = default;
};

}  // namespace cvl::cpu
