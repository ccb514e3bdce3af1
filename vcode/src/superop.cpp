#include "vcode/superop.hpp"

#include <algorithm>

namespace vcode {

std::vector<OperandUse> operand_uses(const SuperOp& op) {
  std::vector<OperandUse> uses(op.operands.size());
  auto operand_of = [&](std::uint32_t node) -> OperandUse* {
    if (node >= op.nodes.size()) return nullptr;
    const SuperOpNode& n = op.nodes[node];
    if (n.kind != SuperOpNode::Kind::Operand || n.operand >= uses.size()) return nullptr;
    return &uses[n.operand];
  };
  auto mark_per_segment = [&](std::uint32_t leaf, std::uint32_t segdes_node) {
    OperandUse* use = operand_of(leaf);
    if (!use || segdes_node >= op.nodes.size()) return;
    std::uint32_t s = op.nodes[segdes_node].operand;
    if (std::find(use->per_segment_of.begin(), use->per_segment_of.end(), s) ==
        use->per_segment_of.end())
      use->per_segment_of.push_back(s);
  };
  for (const SuperOpNode& n : op.nodes) {
    for (std::uint8_t a = 0; a < n.arity; ++a) {
      switch (argument_role(n.kind, a)) {
        case ArgumentRole::Element:
          if (OperandUse* use = operand_of(n.args[a])) use->elementwise = true;
          break;
        case ArgumentRole::PerSegment:
          mark_per_segment(n.args[a], n.args[descriptor_slot(n)]);
          break;
        case ArgumentRole::Descriptor:
          if (OperandUse* use = operand_of(n.args[a])) use->segdes = true;
          break;
        case ArgumentRole::Gathered:
          if (OperandUse* use = operand_of(n.args[a])) use->gathered = true;
          break;
      }
    }
  }
  // A bare `$k` as the whole expression reads it elementwise.
  if (!op.nodes.empty())
    if (OperandUse* use = operand_of(static_cast<std::uint32_t>(op.nodes.size() - 1)))
      use->elementwise = true;
  return uses;
}

}  // namespace vcode
