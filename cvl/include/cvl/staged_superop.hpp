// A superoperator with nested reductions (vcode/superop.hpp) run in stages
// (vcode/superop_stages.hpp): each stage planned and run by the same backend as an ordinary
// FUSED, the results of the earlier stages passed to the later ones as operands. A backend's
// prepare returns one for a nested definition it has no one-pass form of, and its fused runs it.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "cvl/backend.hpp"

namespace cvl {

class StagedSuperOp final : public PreparedSuperOp {
 public:
  // Plans every stage of `op` on `backend` (its prepare must not return a StagedSuperOp for a
  // definition without nested reductions, which no stage has).
  StagedSuperOp(Backend& backend, const vcode::SuperOp& op);

  // The stages in order, on the backend that prepared them.
  Vector run(Backend& backend, std::span<FusedOperand> operands, const Length& domain) const;

 private:
  struct Stage {
    std::unique_ptr<PreparedSuperOp> plan;
    std::vector<std::uint32_t> inputs;  // vcode::SuperOpStage::inputs
  };
  std::vector<Stage> stages_;
};

// The staged plan `op` is, or null.
inline const StagedSuperOp* as_staged(const PreparedSuperOp& op) {
  return dynamic_cast<const StagedSuperOp*>(&op);
}

}  // namespace cvl
