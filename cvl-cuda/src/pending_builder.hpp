// The expressions of pending results (pending_expression.hpp), built node by node from an op and
// its operands: a pending operand that nothing else holds has its expression taken in, a cheap
// generator that others hold too has its expression copied in, any other operand is read as a
// vector. Each computation is one node however often it is read (x * x reads one node): the
// definition is vcode's SuperOpBuilder's, as cvl-cpu's pending expressions' are.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "handles.hpp"
#include "pending_expression.hpp"
#include "vcode/superop_builder.hpp"
#include "vcode/superop_generator.hpp"

namespace cvl::CVL_CUDA_NS {

// Whether `e` is a generator cheaper to make again in each reader than to store and read back:
// INDEX, DIST, constants and elementwise ops as cheap as a pass over memory (none that can trap),
// at most kRecomputeMaxNodes of them, reading no operand at each element.
inline bool cheap_to_recompute(const PendingExpression& e) {
  const std::optional<std::size_t> computed =
      vcode::generator_size(e.definition, [](const vcode::SuperOpNode& n) {
        return n.kind == vcode::SuperOpNode::Kind::Elementwise &&
               !vcode::elementwise_can_trap(n.op, n.type) &&
               vcode::info(n.op).cost == vcode::Cost::Memory;
      });
  return computed && *computed <= kRecomputeMaxNodes;
}

class PendingBuilder {
  using Op = vcode::Op;
  using TypeKeyword = vcode::TypeKeyword;

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
    return definition_.operand_node(
        operand_number({{}, sd}, TypeKeyword::Segdes, sd.storage.get()), false);
  }

  std::uint32_t elementwise(Op op, Type type, std::span<const std::uint32_t> args) {
    return definition_.elementwise(op, to_keyword(type), args);
  }
  std::uint32_t index(std::uint32_t starts, std::uint32_t strides, std::uint32_t segments) {
    return definition_.index(starts, strides, segments);
  }
  std::uint32_t distribute(Type type, std::uint32_t values, std::uint32_t segments) {
    return definition_.distribute(to_keyword(type), values, segments);
  }
  // A reduction or scan (`op`) of `values` per segment of `segments`: the root of a fold.
  std::uint32_t fold(Op op, Type type, std::uint32_t values, std::uint32_t segments) {
    return definition_.fold(op, to_keyword(type), values, segments);
  }

  // The expression, its root the node added last (moved to the end where it is an earlier one).
  PendingExpression finish() {
    expression_.definition = definition_.finish();
    return std::move(expression_);
  }

 private:
  static VectorStorage& storage(const Vector& v) {
    return *static_cast<VectorStorage*>(v.storage.get());
  }
  // Whether `inner` can be taken in with room left for the op's own nodes and a fold.
  bool fits(const PendingExpression& inner) const {
    return definition_.size() + inner.definition.nodes.size() <= kPendingMaxNodes &&
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
    return definition_.splice(inner.definition, renumbered);
  }

  // $k for the vector or descriptor `held`, one k for each however often it is read.
  std::uint32_t operand_number(FusedOperand&& operand, TypeKeyword kind, const Storage* held) {
    const auto [k, added] = definition_.operand_number(kind, held);
    if (added) expression_.operands.push_back(std::move(operand));
    return k;
  }

  std::uint32_t vector_leaf(Vector&& v, bool at_element) {
    const TypeKeyword kind = to_keyword(v.type);
    const Storage* held = v.storage.get();
    return definition_.operand_node(operand_number({std::move(v), {}}, kind, held), at_element);
  }

  std::function<void(const Vector&)> compute_;
  PendingExpression expression_;  // its definition built in definition_ until finished
  vcode::SuperOpBuilder definition_;
};

}  // namespace cvl::CVL_CUDA_NS
