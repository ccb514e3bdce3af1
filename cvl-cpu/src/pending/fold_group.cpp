#include "pending/fold_group.hpp"

#include <algorithm>
#include <utility>

#include "pending/expression_builder.hpp"
#include "pending/pending_results.hpp"

namespace cvl::cpu {
namespace {

auto no_substitute = [](const Storage*) -> std::optional<std::uint32_t> { return std::nullopt; };

// A pending result a fold group may gather reductions of: costly to make again, and of elements
// (not a block of a wider descriptor streamed in pieces); one past the longest vector only for a
// reduction (`scans` false), whose result is short.
const LazyExpression* groupable(const Vector& v, bool scans) {
  const LazyExpression* e = pending_expression(v);
  if (!e || e->streamed_total != 0 || (scans && e->domain > kMaxVectorLength) ||
      e->domain != v.length || cheap_to_recompute(*e))
    return nullptr;
  return e;
}

}  // namespace

long FoldGroup::own_holds() const {
  long holds = 1;
  for (const Fold& f : folds)
    if (f.over)
      for (const FusedOperand& o : f.over->operands) holds += o.vector.storage == values.storage;
  return holds;
}

Vector FoldGroup::compute(std::size_t wanted) {
  std::vector<Vector> out;
  const LazyExpression* shared = pending_expression(values);
  // One pass pays where no other holder will read the values, or where it serves several folds.
  if (shared && (folds.size() > 1 || values.storage.use_count() == own_holds())) {
    // The result's nodes once, each fold's expression over them: copies, so that the result
    // stays pending for any other holder.
    Builder builder(*ctx, shared->domain);
    const std::uint32_t base = builder.splice_copy(*shared, no_substitute);
    auto at_base = [&](const Storage* s) -> std::optional<std::uint32_t> {
      if (s == values.storage.get()) return base;
      return std::nullopt;
    };
    std::vector<FoldOfValues> requests;
    for (Fold& f : folds)
      requests.push_back({f.op, f.segments, f.over ? builder.splice_copy(*f.over, at_base) : base,
                          std::move(f.scanned)});
    LazyExpression combined = builder.finish_at(requests.back().node);
    const std::uint32_t root = static_cast<std::uint32_t>(combined.definition.nodes.size() - 1);
    std::vector<std::uint32_t> outputs;
    for (FoldOfValues& r : requests) {
      if (r.node == requests.back().node) r.node = root;
      if (r.node != root && std::find(outputs.begin(), outputs.end(), r.node) == outputs.end())
        outputs.push_back(r.node);
    }
    const std::shared_ptr<const PreparedSuperOp> plan =
        plan_for(*ctx, combined.definition, outputs);
    out = ctx->evaluator->evaluate_folds(*ctx, *plan, combined.operands, combined.domain,
                                         requests);
  } else {
    // Each as its reduction or scan alone would run: the values computed (and stored) where
    // pending, a scan writing a result of its own as it does alone.
    for (Fold& f : folds) {
      f.scanned = {};
      Builder builder(*ctx, values.length);
      const std::uint32_t folded = f.over ? builder.splice_copy(*f.over, no_substitute)
                                          : builder.operand(Vector(values));
      builder.fold(f.op, f.type, folded, builder.descriptor(f.segments));
      LazyExpression expression = builder.finish();
      out.push_back(cvl::cpu::compute(expression));
    }
  }
  computed = true;
  values = {};
  folds.clear();
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (k == wanted) continue;
    if (const std::shared_ptr<Storage> result = results[k].lock()) {
      const auto* buffer = static_cast<const Buffer*>(result.get());
      if (buffer->pending()) buffer->complete(std::move(out[k]));
    }
  }
  return std::move(out[wanted]);
}

Vector PendingFold::compute(const Storage*) { return group->compute(index); }

std::optional<Vector> fold_in_group(const Context& ctx, vcode::Op op, Vector& v,
                                    const Segdes& sd) {
  const bool scans = vcode::info(op).family == vcode::Family::Scan;
  const LazyExpression* shared = nullptr;
  const Vector* values = nullptr;
  std::unique_ptr<LazyExpression> over;
  if (v.storage.use_count() > 1) {
    shared = groupable(v, scans);
    values = &v;
  } else if (const LazyExpression* e = pending_expression(v)) {
    // An expression over such a result, read only at each element, that holds no vector as
    // long on its own: holding it in the group holds nothing the ops one at a time would not.
    const std::vector<bool> at_elements = vcode::read_at_elements_only(e->definition);
    std::vector<bool> elementwise(e->operands.size(), true);
    for (std::size_t i = 0; i < e->definition.nodes.size(); ++i)
      if (e->definition.nodes[i].kind == vcode::SuperOpNode::Kind::Operand && !at_elements[i])
        elementwise[e->definition.nodes[i].operand] = false;
    for (std::size_t k = 0; k < e->operands.size(); ++k) {
      const Vector& o = e->operands[k].vector;
      if (!o.storage) continue;
      if (o.storage.use_count() == 1 && o.length >= v.length) return std::nullopt;
      if (shared || !elementwise[k] || o.length != v.length || o.storage.use_count() < 2) continue;
      shared = groupable(o, scans);
      values = &o;
    }
    if (shared && e->definition.nodes.size() + shared->definition.nodes.size() >= kLazyMaxNodes)
      return std::nullopt;
  }
  if (!shared) return std::nullopt;
  const Type type = v.type;
  const std::size_t length = scans ? v.length.get() : sd.segments.get();
  // A scan's result, taken now: out of memory, the error is the scan's, as when it runs alone.
  Vector scanned = scans ? allocate(type, length) : Vector{};
  std::shared_ptr<FoldGroup> group = shared->fold_group.lock();
  if (!group || group->computed) {
    group = std::make_shared<FoldGroup>();
    group->ctx = &ctx;
    group->values = *values;
    shared->fold_group = group;
  }
  if (group->folds.size() >= kFoldGroupMax) return std::nullopt;
  if (values != &v) over = take_pending(v);
  auto fold = std::make_unique<PendingFold>();
  fold->group = group;
  fold->index = group->results.size();
  Vector result{type, length, std::make_shared<Buffer>(std::move(fold))};
  group->folds.push_back({op, type, sd, std::move(over), std::move(scanned)});
  group->results.push_back(result.storage);
  pending_results().add(result.storage);
  v = {};
  return result;
}

bool held_for_fold_group(const LazyExpression& expression, long holders) {
  const std::shared_ptr<FoldGroup> group = expression.fold_group.lock();
  return group && !group->computed && holders == group->own_holds();
}

}  // namespace cvl::cpu
