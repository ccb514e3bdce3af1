#include "pending/expression_builder.hpp"

namespace cvl::cpu {
namespace {

using vcode::SuperOpNode;
using Kind = SuperOpNode::Kind;

// An expression of three nodes, `kind` over two operands: their operand numbers.
std::optional<std::pair<std::uint32_t, std::uint32_t>> one_node_over_operands(
    const LazyExpression& e, Kind kind) {
  const std::vector<SuperOpNode>& nodes = e.definition.nodes;
  if (nodes.size() != 3 || nodes[2].kind != kind) return std::nullopt;
  const SuperOpNode& first = nodes[nodes[2].args[0]];
  const SuperOpNode& second = nodes[nodes[2].args[1]];
  if (first.kind != Kind::Operand || second.kind != Kind::Operand) return std::nullopt;
  return std::pair{first.operand, second.operand};
}

}  // namespace

std::vector<bool> read_at_elements_only(const vcode::SuperOp& definition) {
  std::vector<bool> at_elements(definition.nodes.size(), true);
  for (const SuperOpNode& n : definition.nodes) {
    if (n.kind == Kind::Elementwise) continue;
    for (std::uint8_t a = 0; a < n.arity; ++a)
      if (vcode::argument_role(n.kind, a) != vcode::ArgumentRole::Element)
        at_elements[n.args[a]] = false;
  }
  return at_elements;
}

bool cheap_to_recompute(const LazyExpression& e) {
  const std::vector<bool> at_elements = read_at_elements_only(e.definition);
  std::size_t computed = 0;
  bool memory_bound = true;  // each node a pass at the speed of memory
  bool gathers = false;      // reads a short source at positions it makes
  for (std::size_t i = 0; i < e.definition.nodes.size(); ++i) {
    const SuperOpNode& n = e.definition.nodes[i];
    switch (n.kind) {
      case Kind::Operand:  // a descriptor, values per segment, a short source: never the
                           // elements' own
        if (n.result != vcode::TypeKeyword::Segdes && at_elements[i]) return false;
        continue;
      case Kind::Constant:
        continue;
      case Kind::Index:
      case Kind::Dist:
        break;
      case Kind::Gather:
        if (e.operands[e.definition.nodes[n.args[0]].operand].vector.length > kShortGatherSource)
          return false;
        memory_bound = false;
        gathers = true;
        break;
      case Kind::Elementwise:
        if (vcode::elementwise_can_trap(n.op, n.type)) return false;
        if (vcode::info(n.op).cost != vcode::Cost::Memory || n.op == vcode::Op::Div ||
            n.op == vcode::Op::Mod)
          memory_bound = false;
        break;
      default:
        return false;
    }
    ++computed;
  }
  return memory_bound ? computed <= kRecomputeMaxNodes
                      : gathers && computed <= kRegenerateMaxNodes;
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> gather_parts_of(const LazyExpression& e) {
  const auto parts = one_node_over_operands(e, Kind::Gather);
  if (!parts || e.operands[parts->first].vector.length > kShortGatherSource) return std::nullopt;
  return parts;
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> distribute_parts_of(const LazyExpression& e) {
  return one_node_over_operands(e, Kind::Dist);
}

}  // namespace cvl::cpu
