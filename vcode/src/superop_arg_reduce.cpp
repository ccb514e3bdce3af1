#include "vcode/superop_arg_reduce.hpp"

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;

// Whether the trees under nodes a and b compute the same values.
bool same_tree(const SuperOp& op, std::uint32_t a, std::uint32_t b) {
  if (a == b) return true;
  const SuperOpNode& x = op.nodes[a];
  const SuperOpNode& y = op.nodes[b];
  if (x.kind == Kind::Operand || y.kind == Kind::Operand)
    return x.kind == y.kind && x.operand == y.operand;
  if (x.kind != y.kind || x.op != y.op || x.type != y.type || x.result != y.result ||
      x.operand != y.operand || x.int_value != y.int_value ||
      !same_bits(x.float_value, y.float_value) || x.arity != y.arity)
    return false;
  for (std::uint8_t k = 0; k < x.arity && k < 3; ++k)
    if (!same_tree(op, x.args[k], y.args[k])) return false;
  return true;
}

// Whether the tree under `node` is elementwise work that cannot trap (no fold, no INT division).
bool plain(const SuperOp& op, std::uint32_t node) {
  const SuperOpNode& n = op.nodes[node];
  if (n.kind == Kind::Reduce || n.kind == Kind::Scan || n.kind == Kind::Gather ||
      n.kind == Kind::Random)
    return false;
  if (n.kind == Kind::Elementwise && elementwise_can_trap(n.op, n.type)) return false;
  for (std::uint8_t k = 0; k < n.arity && k < 3; ++k)
    if (!plain(op, n.args[k])) return false;
  return true;
}

}  // namespace

std::optional<ArgReduceShape> arg_reduce_shape(const SuperOp& op) {
  if (op.nodes.empty()) return std::nullopt;
  const auto& nodes = op.nodes;
  auto is_descriptor = [&](std::uint32_t node, std::uint32_t s) {
    return nodes[node].kind == Kind::Operand && nodes[node].operand == s &&
           nodes[node].result == TypeKeyword::Segdes;
  };
  auto is_extreme = [](Op o) { return o == Op::MaxReduce || o == Op::MinReduce; };

  const SuperOpNode& root = op.root();
  if (root.kind != Kind::Reduce || !is_extreme(root.op) || root.type != TypeKeyword::Int ||
      root.arity != 2 || nodes[root.args[1]].kind != Kind::Operand)
    return std::nullopt;
  ArgReduceShape shape;
  shape.fold = root.op;
  shape.segdes = nodes[root.args[1]].operand;
  const std::uint32_t s = shape.segdes;

  const SuperOpNode& select = nodes[root.args[0]];
  if (select.kind != Kind::Elementwise || select.op != Op::Select ||
      select.type != TypeKeyword::Int)
    return std::nullopt;
  const SuperOpNode& equal = nodes[select.args[0]];
  if (equal.kind != Kind::Elementwise || equal.op != Op::Equal ||
      (equal.type != TypeKeyword::Int && equal.type != TypeKeyword::Float))
    return std::nullopt;
  shape.type = equal.type;

  // One side of the = spreads the nested reduction, the other is what it reduced.
  bool found = false;
  for (int side = 0; side < 2 && !found; ++side) {
    const SuperOpNode& dist = nodes[equal.args[side]];
    if (dist.kind != Kind::Dist || !is_descriptor(dist.args[1], s)) continue;
    const SuperOpNode& extreme = nodes[dist.args[0]];
    if (extreme.kind != Kind::Reduce || !is_extreme(extreme.op) || extreme.type != shape.type ||
        !is_descriptor(extreme.args[1], s))
      continue;
    if (!same_tree(op, extreme.args[0], equal.args[1 - side]) || !plain(op, extreme.args[0]))
      continue;
    shape.extreme = extreme.op;
    shape.values = extreme.args[0];
    found = true;
  }
  if (!found) return std::nullopt;

  const SuperOpNode& index = nodes[select.args[1]];
  if (index.kind != Kind::Index || !is_descriptor(index.args[2], s)) return std::nullopt;
  shape.index = select.args[1];
  const SuperOpNode& otherwise = nodes[select.args[2]];
  const bool spread = otherwise.kind == Kind::Dist && otherwise.type == TypeKeyword::Int &&
                      nodes[otherwise.args[0]].kind != Kind::Reduce &&
                      is_descriptor(otherwise.args[1], s);
  const bool constant = otherwise.kind == Kind::Constant && otherwise.type == TypeKeyword::Int;
  if (!spread && !constant) return std::nullopt;
  shape.otherwise = select.args[2];
  return shape;
}

}  // namespace vcode
