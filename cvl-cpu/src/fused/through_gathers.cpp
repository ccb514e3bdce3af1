// FUSED calls whose operands are pending gathers of short sources (pending/gather_composition.hpp
// makes them: bh's fields gathered by one index): each such operand is read through its
// positions where the superoperator reads it, never stored.
#include <iterator>
#include <optional>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "fused/fused.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using vcode::SuperOpNode;
using Kind = SuperOpNode::Kind;

}  // namespace

std::optional<Vector> fused_through_gathers(const Context& ctx, const PreparedSuperOp& op,
                                            std::span<FusedOperand> operands, std::size_t domain) {
  const vcode::SuperOp& definition = op.definition;
  if (definition.root().kind == Kind::Operand) return std::nullopt;
  // Operands read only at each element: a gather reads as well there.
  std::vector<std::optional<ShortGather>> gathered(operands.size());
  bool any = false;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const vcode::OperandUse& use = op.analysis.operands[k];
    if (definition.operands[k] == vcode::TypeKeyword::Segdes || !use.elementwise || use.segdes ||
        use.gathered || !use.per_segment_of.empty())
      continue;
    gathered[k] = short_gather_of(operands[k].vector);
    any = any || gathered[k].has_value();
  }
  if (!any) return std::nullopt;

  // $k becomes the positions; the source is a new operand after the declared ones.
  vcode::SuperOp rewritten;
  rewritten.id = definition.id;
  rewritten.operands = definition.operands;
  std::vector<FusedOperand> given(std::make_move_iterator(operands.begin()),
                                  std::make_move_iterator(operands.end()));
  std::vector<std::uint32_t> source_of(operands.size(), 0);
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (!gathered[k]) continue;
    source_of[k] = static_cast<std::uint32_t>(rewritten.operands.size());
    rewritten.operands.push_back(to_keyword(gathered[k]->source.type));
    rewritten.operands[k] = vcode::TypeKeyword::Int;
    given[k].vector = std::move(gathered[k]->positions);
    given.push_back({std::move(gathered[k]->source), {}});
  }
  std::vector<std::uint32_t> now_at(definition.nodes.size());
  for (std::size_t i = 0; i < definition.nodes.size(); ++i) {
    SuperOpNode node = definition.nodes[i];
    for (std::uint8_t a = 0; a < node.arity; ++a) node.args[a] = now_at[node.args[a]];
    if (node.kind == Kind::Operand && gathered[node.operand]) {
      const vcode::TypeKeyword type = node.result;
      SuperOpNode source;
      source.operand = source_of[node.operand];
      source.result = type;
      SuperOpNode positions;
      positions.operand = node.operand;
      positions.result = vcode::TypeKeyword::Int;
      rewritten.nodes.push_back(source);
      rewritten.nodes.push_back(positions);
      node = {};
      node.kind = Kind::Gather;
      node.op = Op::BPermute;
      node.type = node.result = type;
      node.arity = 2;
      node.args[0] = static_cast<std::uint32_t>(rewritten.nodes.size() - 2);
      node.args[1] = static_cast<std::uint32_t>(rewritten.nodes.size() - 1);
    }
    now_at[i] = static_cast<std::uint32_t>(rewritten.nodes.size());
    rewritten.nodes.push_back(node);
  }
  return fused(ctx, *plan_for(ctx, rewritten), given, domain);
}

}  // namespace cvl::cpu
