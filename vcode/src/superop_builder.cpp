#include "vcode/superop_builder.hpp"

#include <algorithm>
#include <utility>

namespace vcode {

SuperOpBuilder::OperandNumber SuperOpBuilder::operand_number(TypeKeyword kind,
                                                             const void* identity) {
  for (std::uint32_t k = 0; k < operand_identity_.size(); ++k)
    if (definition_.operands[k] == kind && operand_identity_[k] == identity) return {k, false};
  definition_.operands.push_back(kind);
  operand_identity_.push_back(identity);
  return {static_cast<std::uint32_t>(operand_identity_.size() - 1), true};
}

std::uint32_t SuperOpBuilder::operand_node(std::uint32_t k, bool at_element) {
  SuperOpNode node;
  node.kind = Kind::Operand;
  node.operand = k;
  node.result = definition_.operands[k];
  return add(node, at_element);
}

std::uint32_t SuperOpBuilder::elementwise(Op op, TypeKeyword type,
                                          std::span<const std::uint32_t> args) {
  SuperOpNode node;
  node.kind = Kind::Elementwise;
  node.op = op;
  node.type = type;
  node.result = result_type_of(op, type);
  node.arity = static_cast<std::uint8_t>(args.size());
  for (std::size_t a = 0; a < args.size(); ++a) node.args[a] = args[a];
  return add(node);
}

std::uint32_t SuperOpBuilder::index(std::uint32_t starts, std::uint32_t strides,
                                    std::uint32_t segments) {
  return node_of(Kind::Index, Op::Index, TypeKeyword::Int, {starts, strides, segments});
}

std::uint32_t SuperOpBuilder::distribute(TypeKeyword type, std::uint32_t values,
                                         std::uint32_t segments) {
  return node_of(Kind::Dist, Op::Dist, type, {values, segments});
}

std::uint32_t SuperOpBuilder::gather(TypeKeyword type, std::uint32_t source,
                                     std::uint32_t positions) {
  return node_of(Kind::Gather, Op::BPermute, type, {source, positions});
}

std::uint32_t SuperOpBuilder::random(std::uint32_t stream, std::int32_t bound) {
  return node_of(Kind::Random, Op::Rand, TypeKeyword::Int, {stream}, bound);
}

std::uint32_t SuperOpBuilder::fold(Op op, TypeKeyword type, std::uint32_t values,
                                   std::uint32_t segments) {
  const Kind kind = info(op).family == Family::Scan ? Kind::Scan : Kind::Reduce;
  return node_of(kind, op, type, {values, segments});
}

std::uint32_t SuperOpBuilder::node_of(Kind kind, Op op, TypeKeyword type,
                                      std::initializer_list<std::uint32_t> args,
                                      std::int32_t int_value) {
  SuperOpNode node;
  node.kind = kind;
  node.op = op;
  node.type = node.result = type;
  node.int_value = int_value;
  node.arity = static_cast<std::uint8_t>(args.size());
  std::copy(args.begin(), args.end(), node.args);
  return add(node);
}

std::uint32_t SuperOpBuilder::add(const SuperOpNode& node, bool read_at_elements) {
  if (!read_at_elements && node.kind == Kind::Operand && node.result != TypeKeyword::Segdes) {
    definition_.nodes.push_back(node);
    return last_ = static_cast<std::uint32_t>(definition_.nodes.size() - 1);
  }
  const std::uint32_t args[3] = {node.arity > 0 ? node.args[0] : 0,
                                 node.arity > 1 ? node.args[1] : 0,
                                 node.arity > 2 ? node.args[2] : 0};
  const auto [at, added] = index_of_.try_emplace(
      node_key(node, args), static_cast<std::uint32_t>(definition_.nodes.size()));
  if (added) definition_.nodes.push_back(node);
  return last_ = at->second;
}

std::uint32_t SuperOpBuilder::splice(const SuperOp& inner,
                                     std::span<const std::uint32_t> operand_now,
                                     std::span<const std::optional<std::uint32_t>> node_now) {
  const std::vector<bool> at_elements = read_at_elements_only(inner);
  std::vector<std::uint32_t> now_at(inner.nodes.size());
  for (std::size_t i = 0; i < now_at.size(); ++i) {
    SuperOpNode node = inner.nodes[i];
    if (node.kind == Kind::Operand && !node_now.empty() && node_now[node.operand]) {
      now_at[i] = *node_now[node.operand];
      continue;
    }
    for (std::uint8_t a = 0; a < node.arity; ++a) node.args[a] = now_at[node.args[a]];
    if (node.kind == Kind::Operand) node.operand = operand_now[node.operand];
    now_at[i] = add(node, at_elements[i]);
  }
  return now_at.back();
}

SuperOp SuperOpBuilder::finish_at(std::uint32_t root) {
  if (root + 1 != definition_.nodes.size()) definition_.nodes.push_back(definition_.nodes[root]);
  return std::move(definition_);
}

}  // namespace vcode
