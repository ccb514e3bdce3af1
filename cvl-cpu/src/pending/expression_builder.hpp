// The expressions of pending results (lazy_elementwise.hpp), built node by node: from an op and
// its operands, a pending operand's expression spliced in, or several pending results' taken
// together (shared_pending.cpp). Each computation is one node however often it is read: the
// definition is vcode's SuperOpBuilder's, as cvl-cuda's pending expressions' are.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "memory/storage.hpp"
#include "pending/lazy_elementwise.hpp"
#include "vcode/superop.hpp"
#include "vcode/superop_builder.hpp"

namespace cvl::cpu {

// Whether `e` is a generator cheap enough to compute again in each reader rather than store
// (lazy_elementwise.hpp): INDEX, DIST, constants and bandwidth-bound elementwise ops over them,
// at most kRecomputeMaxNodes of them, no operand read at each element; or, up to
// kRegenerateMaxNodes of any that cannot trap, such a generator that gathers a short source.
bool cheap_to_recompute(const LazyExpression& e);

// An expression that is only a gather of a short source ($source at $positions): the operand
// numbers of the source and of the positions.
std::optional<std::pair<std::uint32_t, std::uint32_t>> gather_parts_of(const LazyExpression& e);

// An expression that is only a DIST of values per segment: the operand numbers of the values
// and of the descriptor.
std::optional<std::pair<std::uint32_t, std::uint32_t>> distribute_parts_of(const LazyExpression& e);

// One expression made from an op and its operands.
class Builder {
  using Op = vcode::Op;
  using SuperOpNode = vcode::SuperOpNode;
  using TypeKeyword = vcode::TypeKeyword;
  using Kind = SuperOpNode::Kind;

 public:
  Builder(const Context& ctx, std::size_t domain) {
    expression_.ctx = &ctx;
    expression_.domain = domain;
  }

  // The node for an operand: the expression of a pending vector nothing else holds (computed
  // now if it would make this one too large), a constant for a vector of one value, a DIST for one
  // of values per segment, else the vector itself (pending or not).
  std::uint32_t operand(Vector&& v) {
    // A gather of a short source, read again at its positions: cheaper than storing it, and
    // its holders elsewhere need not store it either (but see computes_shared_gathers).
    const bool shared = v.storage.use_count() > 1;
    if (definition_.size() + 3 < kLazyMaxNodes && !(shared && computes_shared_gathers_))
      if (std::optional<ShortGather> g = short_gather_of(v)) {
        const Type type = v.type;
        v = {};
        const std::uint32_t positions = operand(std::move(g->positions));
        return gather(type, gathered(std::move(g->source)), positions);
      }
    // A DIST held elsewhere too: read again through its values per segment, as cheap as reading
    // it stored, so none of its holders stores it (a permute of it moves its values' positions
    // instead, gather_composition.hpp).
    if (shared && definition_.size() + 3 < kLazyMaxNodes)
      if (std::optional<SegmentValues> d = pending_distribute_of(v)) {
        const Type type = v.type;
        v = {};
        const std::uint32_t values = vector_leaf(std::move(d->values));
        return distribute(type, values, segdes_leaf(d->segments));
      }
    // A cheap generator held elsewhere too (float(i) for i in an INDEX, read by ln's argument
    // check and by ln): made again here, so that no reader needs it stored.
    if (const LazyExpression* pending = pending_expression(v);
        pending && shared && cheap_to_recompute(*pending) &&
        definition_.size() + pending->definition.nodes.size() < kLazyMaxNodes) {
      auto none = [](const Storage*) -> std::optional<std::uint32_t> { return std::nullopt; };
      const std::uint32_t root = splice_copy(*pending, none);
      v = {};
      return root;
    }
    if (const LazyExpression* pending = pending_expression(v)) {
      const bool only_here = v.storage.use_count() == 1;
      if (only_here && definition_.size() + pending->definition.nodes.size() < kLazyMaxNodes)
        return splice(std::move(*take_pending(v)));
      if (only_here || pending->depth + 1 >= kLazyMaxDepth)
        elements<std::byte>(v);
      else
        expression_.depth = std::max(expression_.depth, pending->depth + 1);
    }
    if (const std::optional<std::uint64_t> bits = uniform_bits(v)) return constant(v.type, *bits);
    if (const std::shared_ptr<const SegmentValues> rule = segment_values_of(v)) {
      const std::uint32_t values = vector_leaf(Vector(rule->values));
      return distribute(v.type, values, segdes_leaf(rule->segments));
    }
    return vector_leaf(std::move(v), true);
  }

  std::uint32_t elementwise(Op op, Type type, std::span<const std::uint32_t> args) {
    return definition_.elementwise(op, to_keyword(type), args);
  }

  // A gather of a short source that something else holds becomes an operand like any pending
  // one, computed once when this expression is, instead of read at its positions again: for
  // fcode-opt's superoperators, which each repeat the shared subexpressions of their inputs, so
  // that a gathered field read by several of them (bh's cell positions in each force term)
  // would be gathered once per term.
  void computes_shared_gathers() { computes_shared_gathers_ = true; }

  // An operand read other than at each element (a DIST's values per segment, INDEX's starts):
  // the vector itself, computed.
  std::uint32_t leaf(Vector&& v) {
    elements<std::byte>(v);
    return vector_leaf(std::move(v));
  }
  // The same where a per-segment value is one constant for all (an INDEX's stride of 1): read
  // once then, not at each segment. Only for values that take few distinct constants: each is a
  // definition of its own, planned once.
  std::uint32_t leaf_or_constant(Vector&& v) {
    if (const std::optional<std::uint64_t> bits = uniform_bits(v)) return constant(v.type, *bits);
    return leaf(std::move(v));
  }
  std::uint32_t descriptor(const Segdes& sd) { return segdes_leaf(sd); }

  std::uint32_t index(std::uint32_t starts, std::uint32_t strides, std::uint32_t segments) {
    return definition_.index(starts, strides, segments);
  }

  // A node of a definition over nodes already added (its args renumbered by the caller).
  std::uint32_t copy(const SuperOpNode& node) { return definition_.add(node); }
  std::size_t size() const { return definition_.size(); }

  // The source of a gather: read at positions, so never spliced (a pending one is computed).
  std::uint32_t gathered(Vector&& v) {
    elements<std::byte>(v);
    return vector_leaf(std::move(v));
  }

  std::uint32_t gather(Type type, std::uint32_t source, std::uint32_t positions) {
    return definition_.gather(to_keyword(type), source, positions);
  }

  std::uint32_t distribute(Type type, std::uint32_t values, std::uint32_t segments) {
    return definition_.distribute(to_keyword(type), values, segments);
  }

  // RAND's draws from the stream that operand `stream` holds, each reduced by `bound`.
  std::uint32_t random(std::uint32_t stream, std::int32_t bound) {
    return definition_.random(stream, bound);
  }

  // A scan or reduction (`op`) of `values` per segment of `segments`: the root of a fold.
  std::uint32_t fold(Op op, Type type, std::uint32_t values, std::uint32_t segments) {
    return definition_.fold(op, to_keyword(type), values, segments);
  }

  // The expression, its root (the node added last) its last node, as a definition's root is.
  LazyExpression finish() { return with_definition(definition_.finish()); }
  // The same with `root` (a node added) as the root.
  LazyExpression finish_at(std::uint32_t root) {
    return with_definition(definition_.finish_at(root));
  }

  // Appends the nodes of `inner` as splice does, its operands copied, not taken; an operand
  // vector that `substitute` gives a node for reads that node instead.
  template <class Substitute>
  std::uint32_t splice_copy(const LazyExpression& inner, Substitute&& substitute) {
    return splice_with(inner, {}, substitute);
  }
  // The same, taking the operands it keeps out of `inner`.
  template <class Substitute>
  std::uint32_t splice_taking(LazyExpression& inner, Substitute&& substitute) {
    return splice_with(inner, inner.operands, substitute);
  }

 private:
  // `taken`: inner's operands, to move from (else empty: copied).
  template <class Substitute>
  std::uint32_t splice_with(const LazyExpression& inner, std::span<FusedOperand> taken,
                            Substitute& substitute) {
    std::vector<std::optional<std::uint32_t>> replaced(inner.operands.size());
    std::vector<std::uint32_t> renumbered(inner.operands.size());
    for (std::size_t k = 0; k < inner.operands.size(); ++k) {
      const TypeKeyword kind = inner.definition.operands[k];
      const FusedOperand& o = inner.operands[k];
      if (kind != TypeKeyword::Segdes) replaced[k] = substitute(o.vector.storage.get());
      if (replaced[k]) continue;
      const Storage* storage =
          kind == TypeKeyword::Segdes ? o.segdes.storage.get() : o.vector.storage.get();
      renumbered[k] = operand_number(taken.empty() ? FusedOperand(o) : std::move(taken[k]), kind,
                                     storage);
    }
    return definition_.splice(inner.definition, renumbered, replaced);
  }

  LazyExpression with_definition(vcode::SuperOp definition) {
    expression_.definition = std::move(definition);
    return std::move(expression_);
  }

  // $k for `v`, one k per vector however often it is read (x * x reads one operand).
  std::uint32_t operand_number(FusedOperand&& operand, TypeKeyword kind, const Storage* storage) {
    const auto [k, added] = definition_.operand_number(kind, storage);
    if (!added) return k;
    if (kind == TypeKeyword::Segdes)
      expression_.streamed_total =
          std::max(expression_.streamed_total, streamed_total(operand.segdes));
    expression_.operands.push_back(std::move(operand));
    return k;
  }

  std::uint32_t vector_leaf(Vector&& v, bool at_element = false) {
    const TypeKeyword kind = to_keyword(v.type);
    const Storage* storage = v.storage.get();
    return definition_.operand_node(operand_number({std::move(v), {}}, kind, storage), at_element);
  }

  std::uint32_t segdes_leaf(const Segdes& sd) {
    return definition_.operand_node(
        operand_number({{}, sd}, TypeKeyword::Segdes, sd.storage.get()), false);
  }

  std::uint32_t constant(Type type, std::uint64_t bits) {
    SuperOpNode node;
    node.kind = Kind::Constant;
    node.type = node.result = to_keyword(type);
    if (type == Type::Float)
      node.float_value = std::bit_cast<double>(bits);
    else if (type == Type::Bool)
      node.int_value = (bits & 0xFF) != 0;
    else
      node.int_value = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
    return definition_.add(node);
  }

  // Appends the nodes of `inner` (its operands renumbered into this expression's); its root.
  std::uint32_t splice(LazyExpression&& inner) {
    expression_.depth = std::max(expression_.depth, inner.depth);
    auto none = [](const Storage*) -> std::optional<std::uint32_t> { return std::nullopt; };
    return splice_with(inner, inner.operands, none);
  }

  LazyExpression expression_;  // its definition built in definition_ until finished
  vcode::SuperOpBuilder definition_;
  bool computes_shared_gathers_ = false;
};
}  // namespace cvl::cpu
