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
    using Kind = SuperOpNode::Kind;
    switch (n.kind) {
      case Kind::Operand:
      case Kind::Constant:
        break;
      case Kind::Elementwise:
        for (std::uint8_t a = 0; a < n.arity; ++a)
          if (OperandUse* use = operand_of(n.args[a])) use->elementwise = true;
        break;
      case Kind::Dist:
        mark_per_segment(n.args[0], n.args[1]);
        if (OperandUse* use = operand_of(n.args[1])) use->segdes = true;
        break;
      case Kind::Index:
        mark_per_segment(n.args[0], n.args[2]);
        mark_per_segment(n.args[1], n.args[2]);
        if (OperandUse* use = operand_of(n.args[2])) use->segdes = true;
        break;
      case Kind::Gather:
        if (OperandUse* use = operand_of(n.args[0])) use->gathered = true;
        if (OperandUse* use = operand_of(n.args[1])) use->elementwise = true;
        break;
      case Kind::Scan:
      case Kind::Reduce:
        if (OperandUse* use = operand_of(n.args[0])) use->elementwise = true;
        if (OperandUse* use = operand_of(n.args[1])) use->segdes = true;
        break;
    }
  }
  // A bare `$k` as the whole expression reads it elementwise.
  if (!op.nodes.empty())
    if (OperandUse* use = operand_of(static_cast<std::uint32_t>(op.nodes.size() - 1)))
      use->elementwise = true;
  return uses;
}

}  // namespace vcode
