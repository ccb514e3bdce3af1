#include "vcode/superop_stages.hpp"

#include <algorithm>

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;
constexpr std::uint32_t kNotCut = UINT32_MAX;

// The subtree under `root`, where a node with cut[i] != kNotCut is read as value cut[i] (of type
// types[cut[i]]) instead of being computed. Values below op.operands.size() are the operands.
SuperOpStage cut_out(const SuperOp& op, std::uint32_t root, const std::vector<std::uint32_t>& cut,
                     const std::vector<TypeKeyword>& types) {
  std::vector<bool> keep(root + 1, false);
  keep[root] = true;
  for (std::uint32_t i = root + 1; i-- > 0;) {
    if (!keep[i] || (i != root && cut[i] != kNotCut)) continue;
    const SuperOpNode& n = op.nodes[i];
    for (std::uint8_t a = 0; a < n.arity && a < 3; ++a) keep[n.args[a]] = true;
  }
  auto value_read = [&](std::uint32_t i) {
    return i != root && cut[i] != kNotCut ? cut[i] : op.nodes[i].operand;
  };
  auto is_read_value = [&](std::uint32_t i) {
    return (i != root && cut[i] != kNotCut) || op.nodes[i].kind == Kind::Operand;
  };
  SuperOpStage stage;
  for (std::uint32_t i = 0; i <= root; ++i)
    if (keep[i] && is_read_value(i)) stage.inputs.push_back(value_read(i));
  std::sort(stage.inputs.begin(), stage.inputs.end());
  stage.inputs.erase(std::unique(stage.inputs.begin(), stage.inputs.end()), stage.inputs.end());
  auto operand_number = [&](std::uint32_t value) {
    return static_cast<std::uint32_t>(
        std::lower_bound(stage.inputs.begin(), stage.inputs.end(), value) - stage.inputs.begin());
  };
  stage.op.id = op.id;
  stage.op.where = op.where;
  for (std::uint32_t value : stage.inputs) stage.op.operands.push_back(types[value]);
  std::vector<std::uint32_t> renamed(root + 1, 0);
  for (std::uint32_t i = 0; i <= root; ++i) {
    if (!keep[i]) continue;
    SuperOpNode n = op.nodes[i];
    if (is_read_value(i)) {
      const std::uint32_t value = value_read(i);
      n = SuperOpNode{};
      n.kind = Kind::Operand;
      n.operand = operand_number(value);
      n.type = n.result = types[value];
    } else {
      for (std::uint8_t a = 0; a < n.arity && a < 3; ++a) n.args[a] = renamed[n.args[a]];
    }
    renamed[i] = static_cast<std::uint32_t>(stage.op.nodes.size());
    stage.op.nodes.push_back(n);
  }
  return stage;
}

}  // namespace

bool has_nested_reduction(const SuperOp& op) {
  for (std::size_t i = 0; i + 1 < op.nodes.size(); ++i)
    if (op.nodes[i].kind == Kind::Reduce) return true;
  return false;
}

std::vector<SuperOpStage> split_stages(const SuperOp& op) {
  if (op.nodes.empty()) return {{op, {}}};
  std::vector<std::uint32_t> cut(op.nodes.size(), kNotCut);
  std::vector<TypeKeyword> types(op.operands);
  std::vector<SuperOpStage> stages;
  const auto root = static_cast<std::uint32_t>(op.nodes.size() - 1);
  for (std::uint32_t i = 0; i < root; ++i) {  // children first: the innermost reductions first
    if (op.nodes[i].kind != Kind::Reduce) continue;
    stages.push_back(cut_out(op, i, cut, types));
    cut[i] = static_cast<std::uint32_t>(types.size());
    types.push_back(op.nodes[i].result);
  }
  stages.push_back(cut_out(op, root, cut, types));
  return stages;
}

SuperOpStage subtree_definition(const SuperOp& op, std::uint32_t node) {
  return cut_out(op, node, std::vector<std::uint32_t>(op.nodes.size(), kNotCut), op.operands);
}

}  // namespace vcode
