#include "fopt/identities.hpp"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "fopt/op_facts.hpp"
#include "fopt/substitute.hpp"

namespace fopt {
namespace {

using vcode::Op;
using vcode::TypeKeyword;

// Drops the statements of `block` (nested blocks included) that `drop` selects.
template <class Drop>
void erase_if(Block& block, Drop&& drop) {
  std::vector<Stmt> kept;
  kept.reserve(block.stmts.size());
  for (Stmt& s : block.stmts) {
    for (Block& b : s.branches) erase_if(b, drop);
    if (!drop(s)) kept.push_back(std::move(s));
  }
  block.stmts = std::move(kept);
}

class Identities {
 public:
  Identities(Module& module, const EntryFacts& entry, Function& f) : module_(module) {
    entry.assume(f, lengths_);
    walk(f.body);
  }

  // Reads every replaced value as what replaces it, drops the statements that made them, then
  // the descriptors of ones no statement reads any more (they cannot fail: no length is
  // negative).
  void apply(Function& f) {
    substitute(f.body, same_);
    erase_if(f.body, [&](const Stmt& s) { return replaced_.contains(&s); });
    std::unordered_map<VarId, std::size_t> uses;
    count_uses(f.body, uses);
    erase_if(f.body, [&](const Stmt& s) {
      return s.results.size() == 1 && unit_descriptors_.contains(s.results[0]) &&
             !uses.contains(s.results[0]);
    });
  }

  bool changed() const { return !same_.empty(); }

 private:
  VarId at(VarId v) const { return resolve(same_, v); }
  const Stmt* def(VarId v) const {
    auto it = defs_.find(at(v));
    return it == defs_.end() ? nullptr : it->second;
  }
  bool typed(VarId v, VarType type) const { return module_.var_types[at(v)] == type; }
  bool typed(VarId v, const std::optional<TypeKeyword>& type) const {
    return type && typed(v, var_type_of(*type));
  }
  // A descriptor of segments of one element each.
  bool unit(VarId sd) const {
    const Stmt* d = def(sd);
    return is_op(d, Op::MakeSegdes) && ones_.contains(at(d->args[0]));
  }

  // The operand `s` (its operands resolved) returns, where it provably returns one.
  std::optional<VarId> same_as(const Stmt& s) const {
    const std::vector<VarId>& a = s.args;
    switch (s.op) {
      case Op::Lengths:
        if (const Stmt* d = def(a[0]); is_op(d, Op::MakeSegdes) && typed(d->args[0], VarType::Int))
          return at(d->args[0]);
        return std::nullopt;
      case Op::MakeSegdes:
        if (const Stmt* d = def(a[0]); is_op(d, Op::Lengths) && typed(d->args[0], VarType::Segdes))
          return at(d->args[0]);
        return std::nullopt;
      case Op::Dist:
        if (unit(a[1]) && typed(a[0], s.type) && lengths_.checks_hold(s)) return a[0];
        return std::nullopt;
      case Op::Index:
        if (unit(a[2]) && typed(a[0], VarType::Int) && typed(a[1], VarType::Int) &&
            lengths_.checks_hold(s))
          return a[0];
        return std::nullopt;
      case Op::Mul:
        if (s.type != TypeKeyword::Int || !typed(a[0], VarType::Int) ||
            !typed(a[1], VarType::Int) || !lengths_.checks_hold(s))
          return std::nullopt;
        if (ones_.contains(a[0])) return a[1];
        if (ones_.contains(a[1])) return a[0];
        return std::nullopt;
      case Op::Permute: {
        // Each element's position in its segment of sd: INDEX 0 1 over sd.
        const Stmt* p = def(a[1]);
        if (is_op(p, Op::Index) && zeros_.contains(at(p->args[0])) &&
            ones_.contains(at(p->args[1])) && at(p->args[2]) == a[2] && typed(a[0], s.type) &&
            lengths_.checks_hold(s))
          return a[0];
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

  // INT vectors of ones or of zeros: a constant, or a DIST of one.
  void note_value(const Stmt& s) {
    const VarId r = s.results[0];
    for (auto [value, set] : {std::pair{1, &ones_}, std::pair{0, &zeros_}}) {
      if (is_int_constant(&s, value) ||
          (s.op == Op::Dist && s.type == TypeKeyword::Int && set->contains(s.args[0])))
        set->insert(r);
    }
  }

  void walk(Block& block) {
    for (Stmt& s : block.stmts) {
      for (Block& b : s.branches) {
        const std::size_t mark = lengths_.mark();
        walk(b);
        lengths_.rollback(mark);
      }
      if (s.kind != StmtKind::Op) {
        lengths_.learn(s);
        for (VarId r : s.results) defs_[r] = &s;
        continue;
      }
      Stmt resolved;
      resolved.kind = s.kind;
      resolved.op = s.op;
      resolved.type = s.type;
      resolved.constant = s.op == Op::Const ? s.constant : vcode::Constant{};
      resolved.results = s.results;
      for (VarId a : s.args) resolved.args.push_back(at(a));
      if (s.results.size() == 1) {
        if (const std::optional<VarId> same = same_as(resolved)) {
          const VarId r = s.results[0];
          same_[r] = *same;
          replaced_.insert(&s);
          lengths_.unite(LengthFacts::length(r), LengthFacts::length(*same));
          lengths_.unite(LengthFacts::sum(r), LengthFacts::sum(*same));
        } else {
          note_value(resolved);
          if (s.op == Op::MakeSegdes && ones_.contains(resolved.args[0]))
            unit_descriptors_.insert(s.results[0]);
        }
      }
      lengths_.learn(resolved);
      for (VarId r : s.results) defs_[r] = &s;
    }
  }

  Module& module_;
  LengthFacts lengths_;
  std::unordered_map<VarId, const Stmt*> defs_;
  std::unordered_set<VarId> ones_, zeros_;
  Substitution same_;
  std::unordered_set<const Stmt*> replaced_;
  std::unordered_set<VarId> unit_descriptors_;  // MAKE_SEGDES of ones: what each binds
};

}  // namespace

void identities(Module& module, const PassOptions&) {
  const EntryFacts entry(module);
  for (Function& f : module.functions) {
    if (!f.lifted) continue;
    Identities found(module, entry, f);
    if (found.changed()) found.apply(f);
  }
}

}  // namespace fopt
