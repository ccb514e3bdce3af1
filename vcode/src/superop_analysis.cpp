#include "vcode/superop_analysis.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;

// Roles are listed strongest first: a node keeps the strongest role any of its uses gives it.
void give(std::vector<NodeRole>& roles, std::uint32_t node, NodeRole role) {
  if (node < roles.size() && role < roles[node]) roles[node] = role;
}

bool can_trap(const SuperOpNode& n) {
  return n.kind == Kind::Elementwise && vcode::elementwise_can_trap(n.op, n.type);
}

// same_as, invariant and uniform_if_one_segment (superop_analysis.hpp), once the roles are known.
void find_shared_and_invariant(const SuperOp& op, SuperOpAnalysis& a) {
  const std::size_t count = op.nodes.size();
  std::vector<std::uint32_t> representative(count);  // the first structurally equal node
  std::map<NodeKey, std::uint32_t> first_of_key;
  std::map<std::uint32_t, std::uint32_t> first_at_element;  // representative -> node
  a.same_as.resize(count);
  a.invariant.assign(count, false);
  a.uniform_if_one_segment.assign(count, false);
  auto rep = [&](std::uint32_t i, std::uint32_t arg) {
    return arg < i ? representative[arg] : arg;  // an out-of-order argument stays itself
  };
  for (std::uint32_t i = 0; i < count; ++i) {
    const SuperOpNode& n = op.nodes[i];
    const std::uint32_t args[3] = {n.arity > 0 ? rep(i, n.args[0]) : 0,
                                   n.arity > 1 ? rep(i, n.args[1]) : 0,
                                   n.arity > 2 ? rep(i, n.args[2]) : 0};
    const NodeKey key = node_key(n, args);
    representative[i] = first_of_key.try_emplace(key, i).first->second;
    if (representative[i] == i) ++a.distinct_nodes;
    a.same_as[i] = i;
    if (!a.at_element(i)) continue;
    a.same_as[i] = first_at_element.try_emplace(representative[i], i).first->second;
    switch (n.kind) {
      case Kind::Constant:
        a.invariant[i] = a.uniform_if_one_segment[i] = true;
        break;
      case Kind::Dist:
        a.invariant[i] = n.args[0] < count && op.nodes[n.args[0]].kind == Kind::Constant;
        a.uniform_if_one_segment[i] = true;
        break;
      case Kind::Elementwise: {
        bool invariant = !can_trap(n), uniform = invariant;
        for (std::uint8_t k = 0; k < n.arity && k < 3; ++k) {
          invariant = invariant && n.args[k] < i && a.invariant[n.args[k]];
          uniform = uniform && n.args[k] < i && a.uniform_if_one_segment[n.args[k]];
        }
        a.invariant[i] = invariant;
        a.uniform_if_one_segment[i] = uniform;
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

NodeKey node_key(const SuperOpNode& n, const std::uint32_t (&args)[3]) {
  return {n.kind,  n.op,   n.type,  n.result, n.operand, n.int_value,
          std::bit_cast<std::uint64_t>(n.float_value), n.arity, args[0], args[1], args[2]};
}

std::vector<bool> read_at_elements_only(const SuperOp& definition) {
  std::vector<bool> at_elements(definition.nodes.size(), true);
  for (const SuperOpNode& n : definition.nodes) {
    if (n.kind == Kind::Elementwise) continue;
    for (std::uint8_t a = 0; a < n.arity; ++a)
      if (argument_role(n.kind, a) != ArgumentRole::Element) at_elements[n.args[a]] = false;
  }
  return at_elements;
}

SuperOpAnalysis analyze(const SuperOp& op, std::span<const std::uint32_t> outputs) {
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
  std::uint32_t highest = a.values_node;
  for (std::uint32_t output : outputs)
    if (output < last) {
      at_element(output);
      highest = std::max(highest, output);
    }
  // Parents come after their children, so walking down from the root settles each node's role
  // before its own children are looked at.
  for (std::uint32_t i = highest + 1; i-- > 0;) {
    if (!a.at_element(i)) continue;
    const SuperOpNode& n = op.nodes[i];
    if (n.kind == Kind::Scan || n.kind == Kind::Reduce) continue;  // only the root folds
    auto descriptor = static_cast<std::uint32_t>(a.segment_of_needed.size());
    for (std::uint8_t k = 0; k < n.arity && k < 3; ++k) {
      switch (argument_role(n.kind, k)) {
        case ArgumentRole::Element: at_element(n.args[k]); break;
        case ArgumentRole::PerSegment: give(a.roles, n.args[k], NodeRole::SegmentLeaf); break;
        case ArgumentRole::Descriptor: descriptor = descriptor_operand(n.args[k]); break;
        case ArgumentRole::Gathered: give(a.roles, n.args[k], NodeRole::Gathered); break;
      }
    }
    a.divides |= n.kind == Kind::Elementwise && can_trap(n);
    // Values at each element need the segment of j: INDEX's (j - start), and a DIST of an
    // operand's per-segment values (a DIST of a constant is the constant everywhere).
    const bool needs_segment =
        n.kind == Kind::Index ||
        (n.kind == Kind::Dist && n.args[0] < op.nodes.size() &&
         op.nodes[n.args[0]].kind == Kind::Operand);
    if (needs_segment && descriptor < a.segment_of_needed.size())
      a.segment_of_needed[descriptor] = true;
  }

  const auto k = static_cast<std::uint32_t>(a.operands.size());
  std::uint32_t source = k;
  for (std::uint32_t i = 0; i < k && source == k; ++i)
    if (a.operands[i].elementwise) source = i;
  a.domain_is_total = source == k;
  for (std::uint32_t i = 0; i < k && source == k; ++i)
    if (a.operands[i].segdes) source = i;
  a.domain_operand = source == k ? 0 : source;
  find_shared_and_invariant(op, a);
  return a;
}

}  // namespace vcode
