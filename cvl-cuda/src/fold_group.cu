// Fold groups (fold_group.hpp): which reductions wait, and in which group.
#include "fold_group.hpp"

#include <utility>

#include "pending_builder.hpp"

namespace cvl::CVL_CUDA_NS {
namespace {

VectorStorage& storage_of(const Vector& v) { return *static_cast<VectorStorage*>(v.storage.get()); }

// Whether `n` is known to pass `elements` (a pending count without a bound is not waited for).
bool longer_than(const Length& n, std::size_t elements) {
  return n.bound() != PendingCount::kUnbounded && n.bound() > elements;
}

// The expression of a pending result a group may gather reductions of: one that a reduction
// alone would stream, no longer than a vector (as cvl-cpu's groups), and costly to make again.
PendingExpression* groupable(const Vector& v, std::size_t stream_past) {
  PendingExpression* e = storage_of(v).pending.get();
  if (!e || !longer_than(v.length, stream_past) || v.length.bound() > kMaxVectorLength ||
      cheap_to_recompute(*e))
    return nullptr;
  return e;
}

bool same_known_length(const Length& a, const Length& b) {
  return a.known() && b.known() && a.get() == b.get();
}

}  // namespace

long FoldGroup::own_holds() const {
  long holds = 1;
  for (const Fold& f : folds)
    if (f.over)
      for (const FusedOperand& o : f.over->operands) holds += o.vector.storage == values.storage;
  return holds;
}

bool FoldGroup::one_pass() const {
  return storage_of(values).pending &&
         (folds.size() > 1 || values.storage.use_count() == own_holds());
}

std::optional<Vector> fold_in_group(vcode::Op op, Vector& v, const Segdes& sd,
                                    std::size_t stream_past) {
  if (!v.storage || !storage_of(v).pending ||
      sd.segments.bound() == PendingCount::kUnbounded)
    return std::nullopt;
  const Vector* values = nullptr;
  if (v.storage.use_count() > 1) {
    if (groupable(v, stream_past)) values = &v;
  } else {
    // An expression over such a result, read only at each element, that holds no vector as
    // long on its own: holding it in the group holds nothing the ops one at a time would not.
    const PendingExpression& e = *storage_of(v).pending;
    const std::vector<bool> at_elements = read_at_elements_only(e.definition);
    std::vector<bool> elementwise(e.operands.size(), true);
    for (std::size_t i = 0; i < e.definition.nodes.size(); ++i)
      if (e.definition.nodes[i].kind == vcode::SuperOpNode::Kind::Operand && !at_elements[i])
        elementwise[e.definition.nodes[i].operand] = false;
    for (std::size_t k = 0; k < e.operands.size(); ++k) {
      const Vector& o = e.operands[k].vector;
      if (!o.storage) continue;
      if (o.storage.use_count() == 1 && o.length.bound() >= v.length.bound()) return std::nullopt;
      if (values || !elementwise[k] || !same_known_length(o.length, v.length) ||
          o.storage.use_count() < 2 || !groupable(o, stream_past))
        continue;
      values = &o;
    }
  }
  if (!values) return std::nullopt;
  PendingExpression& shared = *storage_of(*values).pending;
  std::shared_ptr<FoldGroup> group = shared.fold_group.lock();
  if (!group || group->computed) {
    group = std::make_shared<FoldGroup>();
    group->values = *values;
    shared.fold_group = group;
  }
  if (group->folds.size() >= kFoldGroupMax) return std::nullopt;
  std::unique_ptr<PendingExpression> over;
  if (values != &v) over = std::move(storage_of(v).pending);
  const Type type = v.type;
  auto result = std::make_shared<VectorStorage>(type, sd.segments.bound());
  result->fold_group = group;
  result->fold = group->results.size();
  group->folds.push_back({op, type, sd, std::move(over)});
  group->results.push_back(result);
  v = {};
  return Vector{type, sd.segments, std::move(result)};
}

}  // namespace cvl::CVL_CUDA_NS
