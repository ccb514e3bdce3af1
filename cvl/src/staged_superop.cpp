#include "cvl/staged_superop.hpp"

#include "vcode/superop_stages.hpp"

namespace cvl {

StagedSuperOp::StagedSuperOp(Backend& backend, const vcode::SuperOp& op) : PreparedSuperOp(op) {
  for (vcode::SuperOpStage& stage : vcode::split_stages(op))
    stages_.push_back({backend.prepare(stage.op), std::move(stage.inputs)});
}

Vector StagedSuperOp::run(Backend& backend, std::span<FusedOperand> operands,
                          const Length& domain) const {
  // The operands, then each stage's result. A value goes to a stage as a copy of its handle
  // (shared: the stage cannot write over it) unless no later stage reads it.
  std::vector<FusedOperand> values(std::make_move_iterator(operands.begin()),
                                   std::make_move_iterator(operands.end()));
  std::vector<std::size_t> last_reader(values.size() + stages_.size(), 0);
  for (std::size_t s = 0; s < stages_.size(); ++s)
    for (std::uint32_t v : stages_[s].inputs) last_reader[v] = s;
  Vector result;
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    std::vector<FusedOperand> given;
    given.reserve(stages_[s].inputs.size());
    for (std::uint32_t v : stages_[s].inputs)
      given.push_back(last_reader[v] == s ? std::move(values[v]) : values[v]);
    result = backend.fused(*stages_[s].plan, given, domain);
    if (s + 1 < stages_.size()) values.push_back({std::move(result), {}});
  }
  return result;
}

}  // namespace cvl
