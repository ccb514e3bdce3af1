// The expressions of pending results (pending_expression.hpp), built node by node from an op and
// its operands: a pending operand that nothing else holds has its expression taken in, a cheap
// generator that others hold too has its expression copied in, any other operand is read as a
// vector. Each computation is one node however often it is read (x * x reads one node).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "handles.hpp"
#include "pending_expression.hpp"
#include "vcode/superop_analysis.hpp"
#include "vcode/superop_key.hpp"

namespace cvl::CVL_CUDA_NS {

// Per node of `definition`: whether every node that reads it reads it at each element (not as a
// DIST's or INDEX's value per segment, nor as a descriptor).
inline std::vector<bool> read_at_elements_only(const vcode::SuperOp& definition) {
  std::vector<bool> at_elements(definition.nodes.size(), true);
  for (const vcode::SuperOpNode& n : definition.nodes) {
    if (n.kind == vcode::SuperOpNode::Kind::Elementwise) continue;
    for (std::uint8_t a = 0; a < n.arity; ++a)
      if (vcode::argument_role(n.kind, a) != vcode::ArgumentRole::Element)
        at_elements[n.args[a]] = false;
  }
  return at_elements;
}

// Whether `e` is a generator cheaper to make again in each reader than to store and read back:
// INDEX, DIST, constants and elementwise ops as cheap as a pass over memory (none that can trap),
// at most kRecomputeMaxNodes of them, reading no operand at each element.
inline bool cheap_to_recompute(const PendingExpression& e) {
  using Kind = vcode::SuperOpNode::Kind;
  const std::vector<bool> at_elements = read_at_elements_only(e.definition);
  std::size_t computed = 0;
  for (std::size_t i = 0; i < e.definition.nodes.size(); ++i) {
    const vcode::SuperOpNode& n = e.definition.nodes[i];
    switch (n.kind) {
      case Kind::Operand:
        if (n.result != vcode::TypeKeyword::Segdes && at_elements[i]) return false;
        continue;
      case Kind::Constant:
        continue;
      case Kind::Index:
      case Kind::Dist:
        break;
      case Kind::Elementwise:
        if (vcode::elementwise_can_trap(n.op, n.type) ||
            vcode::info(n.op).cost != vcode::Cost::Memory)
          return false;
        break;
      default:
        return false;
    }
    ++computed;
  }
  return computed <= kRecomputeMaxNodes;
}


class PendingBuilder {
  using Op = vcode::Op;
  using SuperOpNode = vcode::SuperOpNode;
  using TypeKeyword = vcode::TypeKeyword;
  using Kind = SuperOpNode::Kind;

 public:
  // `compute` computes a pending vector's elements (the backend's materialization).
  PendingBuilder(Length domain, std::function<void(const Vector&)> compute)
      : compute_(std::move(compute)) {
    expression_.domain = std::move(domain);
  }

  // An operand read at each element: a pending vector's expression where it fits (taken from a
  // vector nothing else holds, copied from a cheap generator), else the vector itself.
  std::uint32_t operand(Vector&& v) {
    if (v.storage && storage(v).pending) {
      VectorStorage& s = storage(v);
      const bool only_here = v.storage.use_count() == 1;
      if (fits(*s.pending)) {
        if (only_here) {
          const std::unique_ptr<PendingExpression> inner = std::move(s.pending);
          v = {};
          expression_.depth = std::max(expression_.depth, inner->depth);
          return splice(*inner, inner->operands);
        }
        if (cheap_to_recompute(*s.pending)) {
          const std::uint32_t root = splice(*s.pending, {});
          v = {};
          return root;
        }
      }
      if (only_here || s.pending->depth + 1 >= kPendingMaxDepth)
        compute_(v);
      else
        expression_.depth = std::max(expression_.depth, s.pending->depth + 1);
    }
    return vector_leaf(std::move(v), true);
  }
  // An operand read once per segment (a DIST's values, an INDEX's starts and strides): the
  // vector itself, computed.
  std::uint32_t leaf(Vector&& v) {
    if (v.storage && storage(v).pending) compute_(v);
    return vector_leaf(std::move(v), false);
  }
  std::uint32_t descriptor(const Segdes& sd) {
    return operand_node(operand_number({{}, sd}, TypeKeyword::Segdes, sd.storage.get()), false);
  }

  std::uint32_t elementwise(Op op, Type type, std::span<const std::uint32_t> args) {
    SuperOpNode node;
    node.kind = Kind::Elementwise;
    node.op = op;
    node.type = to_keyword(type);
    node.result = vcode::result_type_of(op, node.type);
    node.arity = static_cast<std::uint8_t>(args.size());
    for (std::size_t a = 0; a < args.size(); ++a) node.args[a] = args[a];
    return add(node);
  }
  std::uint32_t index(std::uint32_t starts, std::uint32_t strides, std::uint32_t segments) {
    return node_of(Kind::Index, Op::Index, TypeKeyword::Int, {starts, strides, segments});
  }
  std::uint32_t distribute(Type type, std::uint32_t values, std::uint32_t segments) {
    return node_of(Kind::Dist, Op::Dist, to_keyword(type), {values, segments});
  }
  // A reduction or scan (`op`) of `values` per segment of `segments`: the root of a fold.
  std::uint32_t fold(Op op, Type type, std::uint32_t values, std::uint32_t segments) {
    const Kind kind = vcode::info(op).family == vcode::Family::Scan ? Kind::Scan : Kind::Reduce;
    return node_of(kind, op, to_keyword(type), {values, segments});
  }

  // The expression, its root the node added last (moved to the end where it is an earlier one).
  PendingExpression finish() {
    if (last_ + 1 != nodes().size()) nodes().push_back(nodes()[last_]);
    return std::move(expression_);
  }

 private:
  static VectorStorage& storage(const Vector& v) {
    return *static_cast<VectorStorage*>(v.storage.get());
  }
  std::vector<SuperOpNode>& nodes() { return expression_.definition.nodes; }

  // Whether `inner` can be taken in with room left for the op's own nodes and a fold.
  bool fits(const PendingExpression& inner) const {
    return expression_.definition.nodes.size() + inner.definition.nodes.size() <=
               kPendingMaxNodes &&
           expression_.operands.size() + inner.operands.size() <= kPendingMaxOperands;
  }

  // Appends the nodes of `inner`, its operands renumbered into this expression's (moved from
  // `taken` where given, else copied); returns its root.
  std::uint32_t splice(const PendingExpression& inner, std::span<FusedOperand> taken) {
    std::vector<std::uint32_t> renumbered(inner.operands.size());
    for (std::size_t k = 0; k < inner.operands.size(); ++k) {
      const TypeKeyword kind = inner.definition.operands[k];
      const FusedOperand& o = inner.operands[k];
      const Storage* held =
          kind == TypeKeyword::Segdes ? o.segdes.storage.get() : o.vector.storage.get();
      renumbered[k] =
          operand_number(taken.empty() ? FusedOperand(o) : std::move(taken[k]), kind, held);
    }
    const std::vector<bool> at_elements = read_at_elements_only(inner.definition);
    std::vector<std::uint32_t> now_at(inner.definition.nodes.size());
    for (std::size_t i = 0; i < now_at.size(); ++i) {
      SuperOpNode node = inner.definition.nodes[i];
      for (std::uint8_t a = 0; a < node.arity; ++a) node.args[a] = now_at[node.args[a]];
      if (node.kind == Kind::Operand) node.operand = renumbered[node.operand];
      now_at[i] = add(node, at_elements[i]);
    }
    return now_at.back();
  }

  std::uint32_t node_of(Kind kind, Op op, TypeKeyword type,
                        std::initializer_list<std::uint32_t> args) {
    SuperOpNode node;
    node.kind = kind;
    node.op = op;
    node.type = node.result = type;
    node.arity = static_cast<std::uint8_t>(args.size());
    std::copy(args.begin(), args.end(), node.args);
    return add(node);
  }

  // Each computation once. An operand read other than at each element (a DIST's values) keeps a
  // node of its own: the kernel reads it at the segment, not at the element.
  std::uint32_t add(const SuperOpNode& node, bool read_at_elements = true) {
    if (!read_at_elements && node.kind == Kind::Operand && node.result != TypeKeyword::Segdes) {
      nodes().push_back(node);
      return last_ = static_cast<std::uint32_t>(nodes().size() - 1);
    }
    const std::uint32_t args[3] = {node.arity > 0 ? node.args[0] : 0,
                                   node.arity > 1 ? node.args[1] : 0,
                                   node.arity > 2 ? node.args[2] : 0};
    const auto [at, added] = index_of_.try_emplace(vcode::node_key(node, args),
                                                   static_cast<std::uint32_t>(nodes().size()));
    if (added) nodes().push_back(node);
    return last_ = at->second;
  }

  std::uint32_t operand_node(std::uint32_t k, bool at_element) {
    SuperOpNode node;
    node.kind = Kind::Operand;
    node.operand = k;
    node.result = expression_.definition.operands[k];
    return add(node, at_element);
  }

  // $k for the vector or descriptor `held`, one k for each however often it is read.
  std::uint32_t operand_number(FusedOperand&& operand, TypeKeyword kind, const Storage* held) {
    auto& operands = expression_.operands;
    for (std::uint32_t k = 0; k < operands.size(); ++k)
      if (expression_.definition.operands[k] == kind &&
          (kind == TypeKeyword::Segdes ? operands[k].segdes.storage.get()
                                       : operands[k].vector.storage.get()) == held)
        return k;
    operands.push_back(std::move(operand));
    expression_.definition.operands.push_back(kind);
    return static_cast<std::uint32_t>(operands.size() - 1);
  }

  std::uint32_t vector_leaf(Vector&& v, bool at_element) {
    const TypeKeyword kind = to_keyword(v.type);
    const Storage* held = v.storage.get();
    return operand_node(operand_number({std::move(v), {}}, kind, held), at_element);
  }

  std::function<void(const Vector&)> compute_;
  PendingExpression expression_;
  std::map<vcode::NodeKey, std::uint32_t> index_of_;
  std::uint32_t last_ = 0;
};

}  // namespace cvl::CVL_CUDA_NS
