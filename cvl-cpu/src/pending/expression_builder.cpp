#include "pending/expression_builder.hpp"

#include "vcode/superop_generator.hpp"

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

bool cheap_to_recompute(const LazyExpression& e) {
  bool memory_bound = true;  // each node a pass at the speed of memory
  bool gathers = false;      // reads a short source at positions it makes
  const std::optional<std::size_t> computed =
      vcode::generator_size(e.definition, [&](const SuperOpNode& n) {
        switch (n.kind) {
          case Kind::Gather:
            if (e.operands[e.definition.nodes[n.args[0]].operand].vector.length >
                kShortGatherSource)
              return false;
            memory_bound = false;
            gathers = true;
            return true;
          case Kind::Elementwise:
            if (vcode::elementwise_can_trap(n.op, n.type)) return false;
            if (vcode::info(n.op).cost != vcode::Cost::Memory || n.op == vcode::Op::Div ||
                n.op == vcode::Op::Mod)
              memory_bound = false;
            return true;
          default:
            return false;
        }
      });
  if (!computed) return false;
  return memory_bound ? *computed <= kRecomputeMaxNodes
                      : gathers && *computed <= kRegenerateMaxNodes;
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
