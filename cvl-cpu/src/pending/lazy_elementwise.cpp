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
#include "memory/index_bound.hpp"
#include "pending/expression_builder.hpp"
#include "pending/fold_group.hpp"
#include "pending/pending_results.hpp"
#include "vcode/superop_key.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using vcode::SuperOp;
using vcode::SuperOpNode;
using vcode::TypeKeyword;
using Kind = SuperOpNode::Kind;
using I32 = std::int32_t;

}  // namespace

// A program makes the same few expressions over and over (one per chain of ops it runs): each is
// planned once. Plans do not depend on the backend object, only on the math mode.
std::shared_ptr<const PreparedSuperOp> plan_for(const Context& ctx, const SuperOp& op,
                                                std::vector<std::uint32_t> outputs) {
  constexpr std::size_t kMaxPlans = 4096;
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const PreparedSuperOp>> plans[2];
  std::string key = vcode::definition_key(op);
  for (std::uint32_t output : outputs)
    key.append(reinterpret_cast<const char*>(&output), sizeof(output));
  std::lock_guard lock(mutex);
  auto& cache = plans[ctx.fast_math ? 1 : 0];
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  if (cache.size() >= kMaxPlans) cache.clear();
  std::shared_ptr<const PreparedSuperOp> plan =
      ctx.evaluator->prepare(ctx, op, std::move(outputs));
  cache.emplace(std::move(key), plan);
  return plan;
}

namespace {

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
  if (!pending_expression(buffer) || v.storage.use_count() != 1) return nullptr;
  return std::unique_ptr<LazyExpression>(
      static_cast<LazyExpression*>(buffer->take_expression().release()));
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

const LazyExpression* pending_expression(const Storage* storage) {
  const auto* buffer = static_cast<const Buffer*>(storage);
  return buffer ? dynamic_cast<const LazyExpression*>(buffer->pending()) : nullptr;
}

std::optional<ShortGather> short_gather_of(const Vector& v) {
  const LazyExpression* pending = pending_expression(v);
  const auto parts = pending ? gather_parts_of(*pending) : std::nullopt;
  if (!parts) return std::nullopt;
  return ShortGather{pending->operands[parts->first].vector,
                     pending->operands[parts->second].vector};
}

std::optional<SegmentValues> pending_distribute_of(const Vector& v) {
  const LazyExpression* pending = pending_expression(v);
  const auto parts = pending ? distribute_parts_of(*pending) : std::nullopt;
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
      const LazyExpression* pending = pending_expression(v);
      described = uniform_bits(v) || segment_values_of(v) ||
                  (pending && (v.storage.use_count() == 1 || cheap_to_recompute(*pending)));
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

std::optional<Vector> fold_pending(const Context& ctx, Op op, Vector& v, const Segdes& sd,
                                   bool* first_held_nan) {
  const LazyExpression* pending = pending_expression(v);
  if (!pending) return std::nullopt;
  if (v.storage.use_count() != 1 && !cheap_to_recompute(*pending))
    return first_held_nan ? std::nullopt : fold_in_group(ctx, op, v, sd);
  // Over a result that others read too: folded in that result's pass (fold_group.hpp).
  if (v.storage.use_count() == 1 && !first_held_nan)
    if (std::optional<Vector> grouped = fold_in_group(ctx, op, v, sd)) return grouped;
  if (pending->definition.nodes.size() + 2 >= kLazyMaxNodes) return std::nullopt;
  const Type type = v.type;
  Builder builder(ctx, v.length);
  const std::uint32_t values = builder.operand(std::move(v));
  builder.fold(op, type, values, builder.descriptor(sd));
  LazyExpression expression = builder.finish();
  return compute(expression, first_held_nan);
}

void compute_pending() {
  for (const std::weak_ptr<Storage>& r : pending_results().take())
    if (const std::shared_ptr<Storage> storage = r.lock()) {
      // Longer than a vector may be (over a wide descriptor): only streamed where it is read.
      // Held only for its fold group: folded in the group's pass, never stored.
      if (const LazyExpression* e = pending_expression(storage.get());
          e && (e->domain > kMaxVectorLength || e->streamed_total != 0 ||
                held_for_fold_group(*e, storage.use_count() - 1)))
        continue;
      static_cast<const Buffer*>(storage.get())->bytes();
    }
}

// Pending operands are computed when the pass binds its operands (fused.cpp's Call, on this
// thread), before it shares out its blocks.
Vector compute(LazyExpression& expression, bool* first_held_nan) {
  const Context& ctx = *expression.ctx;
  const std::shared_ptr<const PreparedSuperOp> plan = plan_for(ctx, expression.definition);
  return ctx.evaluator->evaluate(ctx, *plan, expression.operands, expression.domain,
                                 first_held_nan);
}

Vector LazyExpression::compute(const Storage* self) { return compute_in_group(*this, self); }

}  // namespace cvl::cpu
