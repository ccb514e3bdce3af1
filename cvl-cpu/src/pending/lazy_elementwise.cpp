#include "pending/lazy_elementwise.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "cvl/op_dispatch.hpp"
#include "families/families.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using vcode::SuperOp;
using vcode::SuperOpNode;
using vcode::TypeKeyword;
using Kind = SuperOpNode::Kind;
using I32 = std::int32_t;

// Per node: whether every node that reads it reads it at each element (an elementwise op, a
// gather's positions, a fold's values), not as a gather's source or a DIST's or INDEX's values.
std::vector<bool> read_at_elements_only(const SuperOp& definition) {
  std::vector<bool> at_elements(definition.nodes.size(), true);
  for (const SuperOpNode& n : definition.nodes) {
    if (n.kind == Kind::Elementwise) continue;
    for (std::uint8_t a = 0; a < n.arity; ++a)
      if (vcode::argument_role(n.kind, a) != vcode::ArgumentRole::Element)
        at_elements[n.args[a]] = false;
  }
  return at_elements;
}

// An expression that is only a gather of a short source ($source at $positions): the operand
// numbers of the source and of the positions.
std::optional<std::pair<std::uint32_t, std::uint32_t>> gather_parts_of(const LazyExpression& e) {
  const std::vector<SuperOpNode>& nodes = e.definition.nodes;
  if (nodes.size() != 3 || nodes[2].kind != Kind::Gather) return std::nullopt;
  const SuperOpNode& from = nodes[nodes[2].args[0]];
  const SuperOpNode& at = nodes[nodes[2].args[1]];
  if (from.kind != Kind::Operand || at.kind != Kind::Operand) return std::nullopt;
  if (e.operands[from.operand].vector.length > kShortGatherSource) return std::nullopt;
  return std::pair{from.operand, at.operand};
}

// An expression that is only a DIST of values per segment: the operand numbers of the values
// and of the descriptor.
std::optional<std::pair<std::uint32_t, std::uint32_t>> distribute_parts_of(const LazyExpression& e) {
  const std::vector<SuperOpNode>& nodes = e.definition.nodes;
  if (nodes.size() != 3 || nodes[2].kind != Kind::Dist) return std::nullopt;
  const SuperOpNode& values = nodes[nodes[2].args[0]];
  const SuperOpNode& segments = nodes[nodes[2].args[1]];
  if (values.kind != Kind::Operand || segments.kind != Kind::Operand) return std::nullopt;
  return std::pair{values.operand, segments.operand};
}

// One expression made from an op and its operands.
class Builder {
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
    if (nodes().size() + 3 < kLazyMaxNodes && !(shared && computes_shared_gathers_))
      if (std::optional<ShortGather> g = short_gather_of(v)) {
        const Type type = v.type;
        v = {};
        const std::uint32_t positions = operand(std::move(g->positions));
        return gather(type, gathered(std::move(g->source)), positions);
      }
    // A DIST held elsewhere too: read again through its values per segment, as cheap as reading
    // it stored, so none of its holders stores it (a permute of it moves its values' positions
    // instead, gather_composition.hpp).
    if (shared && nodes().size() + 3 < kLazyMaxNodes)
      if (std::optional<SegmentValues> d = pending_distribute_of(v)) {
        const Type type = v.type;
        v = {};
        const std::uint32_t values = vector_leaf(std::move(d->values));
        return distribute(type, values, segdes_leaf(d->segments));
      }
    auto* buffer = static_cast<Buffer*>(v.storage.get());
    if (const LazyExpression* pending = buffer ? buffer->pending() : nullptr) {
      const bool only_here = v.storage.use_count() == 1;
      if (only_here && nodes().size() + pending->definition.nodes.size() < kLazyMaxNodes)
        return splice(std::move(*buffer->take_expression()));
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
    SuperOpNode node;
    node.kind = Kind::Elementwise;
    node.op = op;
    node.type = to_keyword(type);
    node.result = vcode::result_type_of(op, node.type);
    node.arity = static_cast<std::uint8_t>(args.size());
    for (std::size_t a = 0; a < args.size(); ++a) node.args[a] = args[a];
    return add(node);
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
    return node_of(Kind::Index, Op::Index, TypeKeyword::Int, {starts, strides, segments});
  }

  // A node of a definition over nodes already added (its args renumbered by the caller).
  std::uint32_t copy(const SuperOpNode& node) { return add(node); }
  std::size_t size() { return nodes().size(); }

  // The source of a gather: read at positions, so never spliced (a pending one is computed).
  std::uint32_t gathered(Vector&& v) {
    elements<std::byte>(v);
    return vector_leaf(std::move(v));
  }

  std::uint32_t gather(Type type, std::uint32_t source, std::uint32_t positions) {
    return node_of(Kind::Gather, Op::BPermute, to_keyword(type), {source, positions});
  }

  std::uint32_t distribute(Type type, std::uint32_t values, std::uint32_t segments) {
    return node_of(Kind::Dist, Op::Dist, to_keyword(type), {values, segments});
  }

  // RAND's draws from the stream that operand `stream` holds, each reduced by `bound`.
  std::uint32_t random(std::uint32_t stream, std::int32_t bound) {
    return node_of(Kind::Random, Op::Rand, TypeKeyword::Int, {stream}, bound);
  }

  // A scan or reduction (`op`) of `values` per segment of `segments`: the root of a fold.
  std::uint32_t fold(Op op, Type type, std::uint32_t values, std::uint32_t segments) {
    const Kind kind = vcode::info(op).family == vcode::Family::Scan ? Kind::Scan : Kind::Reduce;
    return node_of(kind, op, to_keyword(type), {values, segments});
  }

  // The expression, its root (the node added last) its last node, as a definition's root is.
  LazyExpression finish() { return finish_at(last_); }
  // The same with `root` (a node added) as the root.
  LazyExpression finish_at(std::uint32_t root) {
    if (root + 1 != nodes().size()) nodes().push_back(nodes()[root]);
    return std::move(expression_);
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
    const std::vector<bool> at_elements = read_at_elements_only(inner.definition);
    std::vector<std::uint32_t> now_at(inner.definition.nodes.size());
    for (std::size_t i = 0; i < now_at.size(); ++i) {
      SuperOpNode node = inner.definition.nodes[i];
      if (node.kind == Kind::Operand && replaced[node.operand]) {
        now_at[i] = *replaced[node.operand];
        continue;
      }
      for (std::uint8_t a = 0; a < node.arity; ++a) node.args[a] = now_at[node.args[a]];
      if (node.kind == Kind::Operand) node.operand = renumbered[node.operand];
      now_at[i] = add(node, at_elements[i]);
    }
    return now_at.back();
  }

  std::vector<SuperOpNode>& nodes() { return expression_.definition.nodes; }

  // A node of `kind` computing `op` over the earlier nodes `args`, its values of `type` (the
  // type keyword is also the op's, as for every node above but an elementwise one).
  std::uint32_t node_of(Kind kind, Op op, TypeKeyword type,
                        std::initializer_list<std::uint32_t> args, std::int32_t int_value = 0) {
    SuperOpNode node;
    node.kind = kind;
    node.op = op;
    node.type = node.result = type;
    node.int_value = int_value;
    node.arity = static_cast<std::uint8_t>(args.size());
    std::copy(args.begin(), args.end(), node.args);
    return add(node);
  }

  // Each computation once: a value that two operands' expressions share (CND's |d| in
  // black-scholes, read by seven subtrees of one fcode-opt tree) is one node, so the node limits
  // count work, not repetitions. An operand read other than at each element (a gather's source,
  // a DIST's values) keeps a node of its own, as its role differs (superop_analysis.hpp);
  // `read_at_elements` says which (only an operand node's, and not a descriptor's, can differ).
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
    last_ = at->second;
    return last_;
  }

  std::uint32_t operand_node(std::uint32_t k, bool at_element) {
    SuperOpNode node;
    node.kind = Kind::Operand;
    node.operand = k;
    node.result = expression_.definition.operands[k];
    return add(node, at_element);
  }

  // $k for `v`, one k per vector however often it is read (x * x reads one operand).
  std::uint32_t operand_number(FusedOperand&& operand, TypeKeyword kind, const Storage* storage) {
    auto& operands = expression_.operands;
    for (std::uint32_t k = 0; k < operands.size(); ++k)
      if (expression_.definition.operands[k] == kind &&
          (kind == TypeKeyword::Segdes ? operands[k].segdes.storage.get()
                                       : operands[k].vector.storage.get()) == storage)
        return k;
    operands.push_back(std::move(operand));
    expression_.definition.operands.push_back(kind);
    return static_cast<std::uint32_t>(operands.size() - 1);
  }

  std::uint32_t vector_leaf(Vector&& v, bool at_element = false) {
    const TypeKeyword kind = to_keyword(v.type);
    const Storage* storage = v.storage.get();
    return operand_node(operand_number({std::move(v), {}}, kind, storage), at_element);
  }

  std::uint32_t segdes_leaf(const Segdes& sd) {
    return operand_node(operand_number({{}, sd}, TypeKeyword::Segdes, sd.storage.get()), false);
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
    return add(node);
  }

  // Appends the nodes of `inner` (its operands renumbered into this expression's); its root.
  std::uint32_t splice(LazyExpression&& inner) {
    expression_.depth = std::max(expression_.depth, inner.depth);
    std::vector<std::uint32_t> renumbered(inner.operands.size());
    for (std::size_t k = 0; k < inner.operands.size(); ++k) {
      const TypeKeyword kind = inner.definition.operands[k];
      FusedOperand& o = inner.operands[k];
      const Storage* storage =
          kind == TypeKeyword::Segdes ? o.segdes.storage.get() : o.vector.storage.get();
      renumbered[k] = operand_number(std::move(o), kind, storage);
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

  LazyExpression expression_;
  bool computes_shared_gathers_ = false;
  std::map<vcode::NodeKey, std::uint32_t> index_of_;  // each node's computation, its args here
  std::uint32_t last_ = 0;
};

// The operand kinds and nodes of a definition, as bytes: the key of its plan.
std::string key_of(const SuperOp& op) {
  std::string key;
  auto put = [&](const auto& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  for (TypeKeyword kind : op.operands) put(kind);
  for (const SuperOpNode& n : op.nodes) {
    put(n.kind);
    put(n.op);
    put(n.type);
    put(n.result);
    put(n.operand);
    put(n.int_value);
    put(std::bit_cast<std::uint64_t>(n.float_value));
    put(n.arity);
    for (std::uint8_t a = 0; a < n.arity; ++a) put(n.args[a]);
  }
  return key;
}

}  // namespace

// A program makes the same few expressions over and over (one per chain of ops it runs): each is
// planned once. Plans do not depend on the backend object, only on the math mode.
std::shared_ptr<const PreparedSuperOp> plan_for(const Context& ctx, const SuperOp& op,
                                                std::vector<std::uint32_t> outputs) {
  constexpr std::size_t kMaxPlans = 4096;
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const PreparedSuperOp>> plans[2];
  std::string key = key_of(op);
  for (std::uint32_t output : outputs)
    key.append(reinterpret_cast<const char*>(&output), sizeof(output));
  std::lock_guard lock(mutex);
  auto& cache = plans[ctx.fast_math ? 1 : 0];
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  if (cache.size() >= kMaxPlans) cache.clear();
  std::shared_ptr<const PreparedSuperOp> plan = prepare_fused(ctx, op, std::move(outputs));
  cache.emplace(std::move(key), plan);
  return plan;
}

namespace {

// The pending results made so far, for compute_pending; entries of results computed, taken into
// another expression or dropped are pruned as the list grows.
class PendingResults {
 public:
  void add(const std::shared_ptr<Storage>& storage) {
    std::lock_guard lock(mutex_);
    if (results_.size() >= prune_at_) {
      std::erase_if(results_, [](const std::weak_ptr<Storage>& r) {
        const std::shared_ptr<Storage> s = r.lock();
        return !s || !static_cast<const Buffer*>(s.get())->pending();
      });
      prune_at_ = std::max<std::size_t>(1024, 2 * results_.size());
    }
    results_.push_back(storage);
  }

  // Calls `visit` with each result still pending, one at a time.
  template <class Visit>
  void for_each_pending(Visit&& visit) {
    std::lock_guard lock(mutex_);
    for (const std::weak_ptr<Storage>& r : results_) {
      std::shared_ptr<Storage> storage = r.lock();
      if (storage && static_cast<const Buffer*>(storage.get())->pending()) visit(std::move(storage));
    }
  }

  std::vector<std::weak_ptr<Storage>> take() {
    std::lock_guard lock(mutex_);
    prune_at_ = 1024;
    return std::exchange(results_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::weak_ptr<Storage>> results_;
  std::size_t prune_at_ = 1024;
};

PendingResults& pending_results() {
  static PendingResults* const instance = new PendingResults;  // never destroyed, like the cache
  return *instance;
}

// The pending result of a finished expression over `n` elements, or the computed one where
// pending would be the only holder of two or more vectors at least as long (more memory than the
// ops one at a time hold).
Vector pending_or_computed(LazyExpression&& expression, std::size_t n) {
  std::size_t held_only_here = 0;
  for (const FusedOperand& o : expression.operands)
    if (o.vector.storage && o.vector.length >= n && o.vector.storage.use_count() == 1)
      ++held_only_here;
  if (held_only_here >= 2) return compute_in_group(expression, nullptr);
  const Type result = to_type(expression.definition.root().result);
  Vector out{result, n,
             std::make_shared<Buffer>(std::make_unique<LazyExpression>(std::move(expression)))};
  pending_results().add(out.storage);
  return out;
}

}  // namespace

std::optional<Vector> lazy_elementwise(const Context& ctx, Op op, Type type,
                                       std::span<Vector> operands) {
  const std::size_t n = operands[0].length;
  if (n < kLazyMin) return std::nullopt;
  if (vcode::elementwise_can_trap(op, to_keyword(type))) return std::nullopt;
  Builder builder(ctx, n);
  std::uint32_t args[3] = {0, 0, 0};
  for (std::size_t a = 0; a < operands.size(); ++a) args[a] = builder.operand(std::move(operands[a]));
  builder.elementwise(op, type, std::span(args, operands.size()));
  return pending_or_computed(builder.finish(), n);
}

std::optional<Vector> lazy_gather(const Context& ctx, PermuteOperands& operands) {
  const SegmentView dest = view(operands.dest_segdes);
  const std::size_t n = dest.total;
  if (n < kLazyMin || dest.segments != 1) return std::nullopt;
  const SegmentView source = view(operands.source_segdes);
  // Only by an index an eager BPERMUTE has checked (bh gathers many fields by one index): a
  // pass to check it here would cost about what leaving the result unstored saves. But a gather
  // of a short source, which later gathers and permutes read through (gather_composition.hpp),
  // waits even by an index not checked yet: a pass checks it here.
  std::optional<std::uint32_t> bound = indices_below(operands.indices);
  if ((!bound || *bound > source.length(0)) && source.length(0) <= kShortGatherSource)
    bound = check_indices_below(ctx.par, operands.indices, source.length(0));
  if (!bound || *bound > source.length(0)) return std::nullopt;
  Vector& values = operands.values;
  if (const std::optional<std::uint64_t> bits = uniform_bits(values))
    return uniform_vector({}, values.type, n, *bits);
  return pending_gather(ctx, std::move(values), std::move(operands.indices));
}

std::optional<Vector> lazy_index(const Context& ctx, Vector& starts, Vector& strides,
                                 const Segdes& descriptor, std::size_t total) {
  if (total < kLazyMin) return std::nullopt;
  Builder builder(ctx, total);
  const std::uint32_t start = builder.leaf(std::move(starts));
  const std::uint32_t stride = builder.leaf_or_constant(std::move(strides));
  builder.index(start, stride, builder.descriptor(descriptor));
  return pending_or_computed(builder.finish(), total);
}

std::optional<Vector> lazy_distribute(const Context& ctx, Vector& values, const Segdes& descriptor,
                                      std::size_t total) {
  if (total < kLazyMin) return std::nullopt;
  Builder builder(ctx, total);
  const Type type = values.type;
  const std::uint32_t per_segment = builder.leaf(std::move(values));  // $0, as in lazy_index
  builder.distribute(type, per_segment, builder.descriptor(descriptor));
  return pending_or_computed(builder.finish(), total);
}

// The Random node's operand: the stream's bytes as the elements of a short INT vector.
std::optional<Vector> lazy_random(const Context& ctx, RandomStream& stream, std::int32_t bound,
                                  std::size_t n) {
  static_assert(std::is_trivially_copyable_v<RandomStream>);
  if (n < kLazyMin) return std::nullopt;
  constexpr std::size_t kWords = (sizeof(RandomStream) + sizeof(I32) - 1) / sizeof(I32);
  Vector saved = allocate(Type::Int, kWords);
  std::memcpy(elements<std::byte>(saved), &stream, sizeof(RandomStream));
  stream.discard(n);
  Builder builder(ctx, n);
  builder.random(builder.gathered(std::move(saved)), bound);
  return pending_or_computed(builder.finish(), n);
}

RandomStream saved_stream(const std::byte* operand) {
  RandomStream stream;
  std::memcpy(&stream, operand, sizeof(RandomStream));
  return stream;
}

std::unique_ptr<LazyExpression> take_pending(Vector& v) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  if (!buffer || !buffer->pending() || v.storage.use_count() != 1) return nullptr;
  return buffer->take_expression();
}

Vector pending_gather(const Context& ctx, Vector source, Vector positions) {
  const std::size_t n = positions.length;
  const Type type = source.type;
  Builder builder(ctx, n);
  const std::uint32_t at = builder.operand(std::move(positions));
  const std::uint32_t from = builder.gathered(std::move(source));
  builder.gather(type, from, at);
  return pending_or_computed(builder.finish(), n);
}

std::optional<ShortGather> short_gather_of(const Vector& v) {
  const auto* buffer = static_cast<const Buffer*>(v.storage.get());
  const LazyExpression* pending = buffer ? buffer->pending() : nullptr;
  if (!pending) return std::nullopt;
  const std::optional<std::pair<std::uint32_t, std::uint32_t>> parts = gather_parts_of(*pending);
  if (!parts) return std::nullopt;
  return ShortGather{pending->operands[parts->first].vector,
                     pending->operands[parts->second].vector};
}

std::optional<SegmentValues> pending_distribute_of(const Vector& v) {
  const auto* buffer = static_cast<const Buffer*>(v.storage.get());
  const LazyExpression* pending = buffer ? buffer->pending() : nullptr;
  if (!pending) return std::nullopt;
  const std::optional<std::pair<std::uint32_t, std::uint32_t>> parts = distribute_parts_of(*pending);
  if (!parts) return std::nullopt;
  return SegmentValues{pending->operands[parts->first].vector,
                       pending->operands[parts->second].segdes};
}

std::optional<Vector> lazy_fused(const Context& ctx, const PreparedSuperOp& op,
                                 std::span<FusedOperand> operands, std::size_t domain) {
  const SuperOp& definition = op.definition;
  const vcode::SuperOpAnalysis& analysis = op.analysis;
  // Values made of descriptors alone are left to fused() (a DIST of a constant: one value,
  // written only if read as memory), as the unfused ops leave them to theirs; but those with an
  // INDEX wait, as the op INDEX does (lazy_index).
  const bool indexes = std::any_of(definition.nodes.begin(), definition.nodes.end(),
                                   [](const SuperOpNode& n) { return n.kind == Kind::Index; });
  if (domain < kLazyMin || (analysis.domain_is_total && !indexes) ||
      definition.root().kind == Kind::Operand || analysis.distinct_nodes >= kLazyMaxNodes)
    return std::nullopt;
  // A fold, or an INT division (whose error is this instruction's), runs at once; built here
  // all the same when an operand read at each element needs no memory of its own (one value, a
  // value per segment, a pending result nothing else holds), as the unfused ops' operands are
  // read: a map-reduce superoperator over a DIST then never writes the DIST out.
  // $k read only at each element, as a lazy elementwise op's operand is.
  auto at_elements = [&](std::size_t k) {
    const vcode::OperandUse& use = analysis.operands[k];
    return use.elementwise && !use.gathered && use.per_segment_of.empty();
  };
  const bool waits = !analysis.folds() && !analysis.divides;
  if (!waits) {
    bool described = false;
    for (std::size_t k = 0; k < operands.size() && !described; ++k) {
      if (definition.operands[k] == TypeKeyword::Segdes || !at_elements(k)) continue;
      const Vector& v = operands[k].vector;
      const auto* buffer = static_cast<const Buffer*>(v.storage.get());
      described = uniform_bits(v) || segment_values_of(v) ||
                  (buffer && buffer->pending() && v.storage.use_count() == 1);
    }
    if (!described) return std::nullopt;
  }
  Builder builder(ctx, domain);
  builder.computes_shared_gathers();
  // Each operand once: one read only at each element as a lazy elementwise op's operand (a
  // pending one taken in, a gather read at its positions), any other as it is.
  std::vector<std::uint32_t> operand_node(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (definition.operands[k] == TypeKeyword::Segdes)
      operand_node[k] = builder.descriptor(operands[k].segdes);
    else if (at_elements(k))
      operand_node[k] = builder.operand(std::move(operands[k].vector));
    else
      operand_node[k] = builder.leaf(std::move(operands[k].vector));
  }
  std::vector<std::uint32_t> now_at(definition.nodes.size());
  for (std::size_t i = 0; i < definition.nodes.size(); ++i) {
    SuperOpNode node = definition.nodes[i];
    if (node.kind == Kind::Operand) {
      now_at[i] = operand_node[node.operand];
      continue;
    }
    for (std::uint8_t a = 0; a < node.arity; ++a) node.args[a] = now_at[node.args[a]];
    now_at[i] = builder.copy(node);
  }
  if (!waits) {
    LazyExpression expression = builder.finish();
    return compute(expression);
  }
  return pending_or_computed(builder.finish(), domain);
}

std::optional<Vector> fold_pending(const Context& ctx, Op op, Vector& v, const Segdes& sd) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  const LazyExpression* pending = buffer ? buffer->pending() : nullptr;
  if (!pending || v.storage.use_count() != 1 ||
      pending->definition.nodes.size() + 2 >= kLazyMaxNodes)
    return std::nullopt;
  const Type type = v.type;
  Builder builder(ctx, v.length);
  const std::uint32_t values = builder.operand(std::move(v));
  builder.fold(op, type, values, builder.descriptor(sd));
  LazyExpression expression = builder.finish();
  return compute(expression);
}

void compute_pending() {
  for (const std::weak_ptr<Storage>& r : pending_results().take())
    if (const std::shared_ptr<Storage> storage = r.lock())
      static_cast<const Buffer*>(storage.get())->bytes();
}

// Pending operands are computed when the pass binds its operands (fused.cpp's Call, on this
// thread), before it shares out its blocks.
// ---- Pending results computed in one pass.
//
// Flattened code computes the fields of a tuple from shared intermediates: bh's force terms
// ax, ay, az each read dx, dy, dz, dr5inv and phi_quad, and phi_quad reads the quadrupole rows
// that ax, ay, az read too. Each is a pending result held by several pending expressions, so
// computing ax alone stores them all, and ay and az read them back. Instead, the expression being
// computed takes in its pending operands, the pending results found holding any of them (its
// siblings), and theirs in turn, up to a size: a pending value held only inside that group is
// computed in the pass's blocks and never stored; one held elsewhere (the VM's stack, another
// expression) is written out by the same pass, as each sibling is.

namespace {

constexpr std::size_t kGroupMaxNodes = 160;   // nodes of one pass
constexpr std::size_t kGroupMaxOutputs = 8;   // results it writes besides its own

// A pending result in a group: its buffer, and the expression it will be computed from.
struct GroupPart {
  const Storage* storage;
  const LazyExpression* expression;
  std::shared_ptr<Storage> held;  // kept alive while the group is computed
  long holders = 0;               // its use count, less `held`
  long held_in_group = 0;         // how many expressions of the group read it
  bool output = false;            // read outside the group: written out
  std::optional<std::uint32_t> node;  // where the combined expression computes it
};

class Group {
 public:
  Group(LazyExpression& root, const Storage* self) : root_(root), self_(self) {
    nodes_ = root.definition.nodes.size();
  }

  // Takes in the pending operands of the root, and theirs; then the pending results that share
  // them (siblings) where that leaves a shared operand read only inside the group. Any other
  // sibling would be computed and stored early for nothing: later ops may take it into their
  // own expressions.
  void gather_parts() {
    walk(root_);
    walk_parts();
    if (std::none_of(parts_.begin(), parts_.end(),
                     [](const GroupPart& p) { return p.holders > p.held_in_group; }))
      return;
    std::vector<Sibling> siblings;
    pending_results().for_each_pending([&](std::shared_ptr<Storage> storage) {
      if (storage.get() == self_ || index_.contains(storage.get())) return;
      const LazyExpression* e = static_cast<const Buffer*>(storage.get())->pending();
      if (e->domain != root_.domain || !takes_in(*e) || !reads_a_part(*e)) return;
      const long holders = storage.use_count() - 1;  // less this visit's own handle
      siblings.push_back({std::move(storage), e, holders});
    });
    if (siblings.empty()) return;
    const std::size_t own = parts_.size();
    add_siblings(siblings);
    std::erase_if(siblings, [&](const Sibling& s) {
      for (const FusedOperand& o : s.expression->operands) {
        const auto found = index_.find(o.vector.storage.get());
        if (found != index_.end() && found->second < own &&
            parts_[found->second].holders == parts_[found->second].held_in_group)
          return false;
      }
      return true;
    });
    if (parts_.size() == own + siblings.size()) return;
    parts_.clear();
    walked_.clear();
    index_.clear();
    nodes_ = root_.definition.nodes.size();
    walk(root_);
    walk_parts();
    add_siblings(siblings);
  }

  bool empty() const { return parts_.empty(); }

 private:
  struct Sibling {
    std::shared_ptr<Storage> storage;
    const LazyExpression* expression;
    long holders;  // its use count, less `storage`
  };

  void add_siblings(const std::vector<Sibling>& siblings) {
    for (const Sibling& s : siblings)
      if (!index_.contains(s.storage.get()) && fits(*s.expression))
        add_part(s.storage.get(), s.expression, s.holders, s.storage);
    walk_parts();
  }

 public:

  Vector compute() {
    std::size_t outputs = 0;
    for (GroupPart& p : parts_) {
      p.output = p.holders > p.held_in_group;
      outputs += p.output;
    }
    // Only a value never stored pays for the pass: outputs alone are as cheap one at a time,
    // each then free to reuse a dying operand's memory.
    if (outputs == parts_.size() || outputs > kGroupMaxOutputs) return cvl::cpu::compute(root_);
    Builder builder(*root_.ctx, root_.domain);
    // The root's operands are taken: one that nothing else holds may take the result in place.
    const std::uint32_t root = builder.splice_taking(
        root_, [&](const Storage* storage) { return substitute(builder, storage); });
    root_node_ = root;
    std::vector<std::uint32_t> output_nodes;
    std::vector<const GroupPart*> written;
    for (GroupPart& p : parts_)
      if (p.output) {
        output_nodes.push_back(node_of(builder, p));
        written.push_back(&p);
      }
    LazyExpression combined = builder.finish_at(root);
    const std::shared_ptr<const PreparedSuperOp> plan =
        plan_for(*root_.ctx, combined.definition, output_nodes);
    std::vector<Vector> results = fused_outputs(*root_.ctx, *plan, combined.operands, root_.domain);
    for (std::size_t k = 0; k < written.size(); ++k) {
      const auto* buffer = static_cast<const Buffer*>(written[k]->storage);
      if (buffer->pending()) buffer->complete(std::move(results[k]));
    }
    return std::move(results.back());
  }

 private:
  // A pending operand the group may take in: as long as the pass, read only at each element
  // (so it can be a node of the pass), and neither a short gather nor a DIST (cheaper to read
  // again where used than to store: Builder::operand).
  const LazyExpression* candidate(const Vector& v) const {
    const auto* buffer = static_cast<const Buffer*>(v.storage.get());
    const LazyExpression* e = buffer ? buffer->pending() : nullptr;
    if (!e || v.length != root_.domain || e->domain != root_.domain || !takes_in(*e))
      return nullptr;
    return e;
  }

  static bool takes_in(const LazyExpression& e) {
    return !gather_parts_of(e) && !distribute_parts_of(e);
  }

  bool fits(const LazyExpression& e) const {
    return nodes_ + e.definition.nodes.size() <= kGroupMaxNodes;
  }

  bool reads_a_part(const LazyExpression& e) const {
    for (const FusedOperand& o : e.operands)
      if (o.vector.storage && index_.contains(o.vector.storage.get())) return true;
    return false;
  }

  void add_part(const Storage* storage, const LazyExpression* e, long holders,
                std::shared_ptr<Storage> held) {
    index_.emplace(storage, parts_.size());
    parts_.push_back({storage, e, std::move(held), holders, 0, false, std::nullopt});
    walked_.push_back(false);
    nodes_ += e->definition.nodes.size();
  }

  // Counts what `e` reads of the group, taking in its pending operands that fit.
  void walk(const LazyExpression& e) {
    const std::vector<bool> at_elements = read_at_elements_only(e.definition);
    std::vector<bool> elementwise(e.operands.size(), true);
    for (std::size_t i = 0; i < e.definition.nodes.size(); ++i)
      if (e.definition.nodes[i].kind == Kind::Operand && !at_elements[i])
        elementwise[e.definition.nodes[i].operand] = false;
    for (std::size_t k = 0; k < e.operands.size(); ++k) {
      const Vector& v = e.operands[k].vector;
      if (!v.storage) continue;
      if (v.storage.get() == self_) continue;  // the root, computed by this pass
      auto found = index_.find(v.storage.get());
      if (found == index_.end()) {
        const LazyExpression* inner = elementwise[k] ? candidate(v) : nullptr;
        if (!inner || !fits(*inner)) continue;
        const long holders = v.storage.use_count();
        add_part(v.storage.get(), inner, holders, v.storage);
        found = index_.find(v.storage.get());
      }
      ++parts_[found->second].held_in_group;
    }
  }

  // Walks the parts not walked yet, and those that adds.
  void walk_parts() {
    for (std::size_t i = 0; i < parts_.size(); ++i)
      if (!walked_[i]) {
        walked_[i] = true;
        walk(*parts_[i].expression);
      }
  }

  std::optional<std::uint32_t> substitute(Builder& builder, const Storage* storage) {
    if (self_ && storage == self_) return root_node_;
    auto found = index_.find(storage);
    if (found == index_.end()) return std::nullopt;
    return node_of(builder, parts_[found->second]);
  }

  std::uint32_t node_of(Builder& builder, GroupPart& p) {
    if (!p.node) p.node = splice(builder, *p.expression);
    return *p.node;
  }

  std::uint32_t splice(Builder& builder, const LazyExpression& e) {
    return builder.splice_copy(
        e, [&](const Storage* storage) { return substitute(builder, storage); });
  }

  LazyExpression& root_;
  const Storage* self_;
  std::size_t nodes_ = 0;
  std::vector<GroupPart> parts_;
  std::vector<bool> walked_;
  std::unordered_map<const Storage*, std::size_t> index_;
  std::optional<std::uint32_t> root_node_;
};

}  // namespace

Vector compute_in_group(LazyExpression& expression, const Storage* self) {
  // One group at a time: the operands a group's pass binds are computed on their own.
  thread_local bool in_group = false;
  const Kind root = expression.definition.root().kind;
  if (in_group || root == Kind::Scan || root == Kind::Reduce) return compute(expression);
  in_group = true;
  struct Leave {
    ~Leave() { in_group = false; }
  } leave;
  Group group(expression, self);
  group.gather_parts();
  if (group.empty()) return compute(expression);
  return group.compute();
}

Vector compute(LazyExpression& expression) {
  const std::shared_ptr<const PreparedSuperOp> plan =
      plan_for(*expression.ctx, expression.definition);
  return fused(*expression.ctx, *plan, expression.operands, expression.domain);
}

}  // namespace cvl::cpu
