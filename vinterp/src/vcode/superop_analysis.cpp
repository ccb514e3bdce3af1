#include "vcode/superop_analysis.hpp"

#include <algorithm>

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;

// Roles are listed strongest first: a node keeps the strongest role any of its uses gives it.
void give(std::vector<NodeRole>& roles, std::uint32_t node, NodeRole role) {
  if (node < roles.size() && role < roles[node]) roles[node] = role;
}

}  // namespace

SuperOpAnalysis analyze(const SuperOp& op) {
  SuperOpAnalysis a;
  a.operands = operand_uses(op);
  a.segment_of_needed.assign(op.operands.size(), false);
  a.roles.assign(op.nodes.size(), NodeRole::Unused);
  if (op.nodes.empty()) return a;

  const auto last = static_cast<std::uint32_t>(op.nodes.size() - 1);
  const SuperOpNode& root = op.root();
  a.values_node = last;
  if (root.kind == Kind::Scan || root.kind == Kind::Reduce) {
    a.root_kind = root.kind == Kind::Scan ? RootKind::Scan : RootKind::Reduce;
    a.root_op = root.op;
    a.values_node = std::min(root.args[0], last);
    if (root.args[1] < op.nodes.size()) a.root_segdes = op.nodes[root.args[1]].operand;
    a.roles[last] = NodeRole::Fold;
    give(a.roles, root.args[1], NodeRole::Descriptor);
  }
  a.values_type = op.nodes[a.values_node].result;
  a.result_type = root.result;

  auto is_segdes_operand = [&](const SuperOpNode& n) {
    return n.kind == Kind::Operand && n.operand < op.operands.size() &&
           op.operands[n.operand] == TypeKeyword::Segdes;
  };
  auto at_element = [&](std::uint32_t node) {
    if (node >= op.nodes.size()) return;
    const SuperOpNode& n = op.nodes[node];
    give(a.roles, node,
         is_segdes_operand(n)          ? NodeRole::Descriptor
         : n.kind == Kind::Constant ? NodeRole::Constant
                                    : NodeRole::Element);
  };
  auto descriptor_operand = [&](std::uint32_t node) -> std::uint32_t {
    give(a.roles, node, NodeRole::Descriptor);
    return node < op.nodes.size() ? op.nodes[node].operand : 0;
  };
  at_element(a.values_node);
  // Parents come after their children, so walking down from the root settles each node's role
  // before its own children are looked at.
  for (std::uint32_t i = a.values_node + 1; i-- > 0;) {
    if (!a.at_element(i)) continue;
    const SuperOpNode& n = op.nodes[i];
    switch (n.kind) {
      case Kind::Elementwise:
        for (std::uint8_t k = 0; k < n.arity && k < 3; ++k) at_element(n.args[k]);
        a.divides |= n.op == Op::Mod || (n.op == Op::Div && n.type == TypeKeyword::Int);
        break;
      case Kind::Dist: {
        give(a.roles, n.args[0], NodeRole::SegmentLeaf);
        const std::uint32_t s = descriptor_operand(n.args[1]);
        const bool reads_operand = n.args[0] < op.nodes.size() &&
                                   op.nodes[n.args[0]].kind == Kind::Operand;
        if (reads_operand && s < a.segment_of_needed.size()) a.segment_of_needed[s] = true;
        break;
      }
      case Kind::Index: {
        give(a.roles, n.args[0], NodeRole::SegmentLeaf);
        give(a.roles, n.args[1], NodeRole::SegmentLeaf);
        const std::uint32_t s = descriptor_operand(n.args[2]);
        if (s < a.segment_of_needed.size()) a.segment_of_needed[s] = true;
        break;
      }
      default:
        break;
    }
  }

  const auto k = static_cast<std::uint32_t>(a.operands.size());
  std::uint32_t source = k;
  for (std::uint32_t i = 0; i < k && source == k; ++i)
    if (a.operands[i].elementwise) source = i;
  a.domain_is_total = source == k;
  for (std::uint32_t i = 0; i < k && source == k; ++i)
    if (a.operands[i].segdes) source = i;
  a.domain_operand = source == k ? 0 : source;
  return a;
}

}  // namespace vcode
