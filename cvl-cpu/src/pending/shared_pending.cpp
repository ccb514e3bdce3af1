// Pending results computed in one pass (compute_in_group, lazy_elementwise.hpp). Flattened code
// computes the fields of a tuple from shared intermediates: bh's force terms ax, ay, az each
// read dx, dy, dz, dr5inv and phi_quad, and phi_quad reads the quadrupole rows that ax, ay, az
// read too. Each is a pending result held by several pending expressions, so computing ax alone
// stores them all, and ay and az read them back. Instead, the expression being computed takes in
// its pending operands, the pending results found holding any of them (its siblings), and theirs
// in turn, up to a size: a pending value held only inside that group is computed in the pass's
// blocks and never stored; one held elsewhere (the VM's stack, another expression) is written
// out by the same pass, as each sibling is.
#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pending/context.hpp"
#include "pending/expression_builder.hpp"
#include "pending/lazy_elementwise.hpp"
#include "pending/pending_results.hpp"

namespace cvl::cpu {
namespace {

using Kind = vcode::SuperOpNode::Kind;

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
      const LazyExpression* e = pending_expression(storage.get());
      if (!e || e->domain != root_.domain || !takes_in(*e) || !reads_a_part(*e)) return;
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

  // The root's values, computed with the group's; nothing where no pass pays.
  std::optional<Vector> compute() {
    if (parts_.empty()) return std::nullopt;
    std::size_t outputs = 0;
    for (GroupPart& p : parts_) {
      p.output = p.holders > p.held_in_group;
      outputs += p.output;
    }
    // Only a value never stored pays for the pass: outputs alone are as cheap one at a time,
    // each then free to reuse a dying operand's memory.
    if (outputs == parts_.size() || outputs > kGroupMaxOutputs) return std::nullopt;
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
    std::vector<Vector> results =
        root_.ctx->evaluator->evaluate_outputs(*root_.ctx, *plan, combined.operands, root_.domain);
    for (std::size_t k = 0; k < written.size(); ++k) {
      const auto* buffer = static_cast<const Buffer*>(written[k]->storage);
      if (buffer->pending()) buffer->complete(std::move(results[k]));
    }
    return std::move(results.back());
  }

 private:
  // A pending result that shares a part, found among those not computed yet.
  struct Sibling {
    std::shared_ptr<Storage> storage;
    const LazyExpression* expression;
    long holders;  // its use count, less `storage`
  };

  // A pending operand the group may take in: as long as the pass, read only at each element
  // (so it can be a node of the pass), and neither a short gather nor a DIST (cheaper to read
  // again where used than to store: Builder::operand).
  const LazyExpression* candidate(const Vector& v) const {
    const LazyExpression* e = pending_expression(v);
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
    const std::vector<bool> at_elements = vcode::read_at_elements_only(e.definition);
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

  void add_siblings(const std::vector<Sibling>& siblings) {
    for (const Sibling& s : siblings)
      if (!index_.contains(s.storage.get()) && fits(*s.expression))
        add_part(s.storage.get(), s.expression, s.holders, s.storage);
    walk_parts();
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
  // Elements of a block of a vector longer than any may be (its folds are short).
  if (expression.streamed_total != 0 && root != Kind::Reduce)
    throw Error(vector_too_long_message(expression.streamed_total));
  if (!in_group && root != Kind::Scan && root != Kind::Reduce) {
    std::optional<Vector> together;
    {
      in_group = true;
      struct Leave {
        ~Leave() { in_group = false; }
      } leave;
      Group group(expression, self);
      group.gather_parts();
      together = group.compute();
    }  // the group's handles on its parts are gone: computed alone, an operand may be reused
    if (together) return std::move(*together);
  }
  return compute(expression);
}

}  // namespace cvl::cpu
