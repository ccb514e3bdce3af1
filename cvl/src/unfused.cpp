#include "cvl/unfused.hpp"

#include <cstdint>
#include <utility>
#include <vector>

#include "cvl/op_dispatch.hpp"

namespace cvl {
namespace {

using Kind = vcode::SuperOpNode::Kind;

Vector constant_vector(Backend& b, const vcode::SuperOpNode& n, std::size_t length) {
  const Type t = to_type(n.type);
  if (t == Type::Float) {
    std::vector<double> x(length, n.float_value);
    return b.upload(t, x.data(), length);
  }
  if (t == Type::Bool) {
    std::vector<std::uint8_t> x(length, static_cast<std::uint8_t>(n.int_value));
    return b.upload(t, x.data(), length);
  }
  std::vector<std::int32_t> x(length, n.int_value);
  return b.upload(t, x.data(), length);
}

}  // namespace

Vector run_unfused(Backend& b, const vcode::SuperOp& op, std::span<const FusedOperand> operands,
                   const Length& domain) {
  const auto& nodes = op.nodes;
  auto segdes_of = [&](std::uint32_t node) -> const Segdes& {
    return operands[nodes[node].operand].segdes;
  };
  // How long each node's vector is (a constant has as many elements as its use needs), and how
  // many uses each node has left.
  std::vector<Length> length(nodes.size(), domain);
  std::vector<std::uint32_t> uses_left(nodes.size(), 0);
  for (const auto& n : nodes) {
    for (std::uint8_t a = 0; a < n.arity; ++a) ++uses_left[n.args[a]];
    if (n.kind == Kind::Dist) length[n.args[0]] = segdes_of(n.args[1]).segments;
    if (n.kind == Kind::Index)
      length[n.args[0]] = length[n.args[1]] = segdes_of(n.args[2]).segments;
  }
  std::vector<Vector> value(nodes.size());
  auto take = [&](std::uint32_t node) {
    return --uses_left[node] == 0 ? std::move(value[node]) : value[node];
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    switch (n.kind) {
      case Kind::Operand:
        value[i] = operands[n.operand].vector;
        break;
      case Kind::Constant:
        value[i] = constant_vector(b, n, length[i].get());
        break;
      case Kind::Elementwise: {
        std::vector<Vector> args;
        for (std::uint8_t a = 0; a < n.arity; ++a) args.push_back(take(n.args[a]));
        value[i] = b.elementwise(n.op, to_type(n.type), args);
        break;
      }
      case Kind::Dist:
        value[i] = b.distribute(take(n.args[0]), segdes_of(n.args[1]));
        break;
      case Kind::Index: {
        Vector starts = take(n.args[0]);
        value[i] = b.index(std::move(starts), take(n.args[1]), segdes_of(n.args[2]));
        break;
      }
      case Kind::Scan:
        value[i] = b.scan(n.op, take(n.args[0]), segdes_of(n.args[1]));
        break;
      case Kind::Reduce:
        value[i] = b.reduce(n.op, take(n.args[0]), segdes_of(n.args[1]));
        break;
      case Kind::Gather:  // never in a checked definition (cvl-cpu's run-time expressions only)
        throw InternalError("a gather node reached the unfused evaluator");
      case Kind::Random:  // the same
        throw InternalError("a random node reached the unfused evaluator");
    }
  }
  return std::move(value.back());
}

}  // namespace cvl
