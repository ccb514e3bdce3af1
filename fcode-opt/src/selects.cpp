#include "fopt/selects.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "fopt/op_facts.hpp"

namespace fopt {
namespace {

using vcode::Op;
using vcode::TypeKeyword;

// A change of more statements stays packed: the SELECT form computes it at every element,
// flagged or not.
constexpr std::size_t kMaxChange = 32;

// What the matcher reads about a function: each variable's definition, how often it is read, and
// the statements whose length checks are known to hold where they run (single assignment: a
// definition is a fact wherever its variable is read).
class FunctionFacts {
 public:
  FunctionFacts(const Function& f, const EntryFacts& entry) {
    entry.assume(f, lengths_);
    walk(f.body);
    count_uses(f.body, uses_);
  }

  const Stmt* def(VarId v) const {
    auto it = def_.find(v);
    return it == def_.end() ? nullptr : it->second;
  }
  std::size_t uses(VarId v) const {
    auto it = uses_.find(v);
    return it == uses_.end() ? 0 : it->second;
  }
  bool checks_hold(const Stmt& s) const { return holds_.contains(&s); }

 private:
  void walk(const Block& block) {
    for (const Stmt& s : block.stmts) {
      for (const Block& b : s.branches) {
        const std::size_t mark = lengths_.mark();
        walk(b);
        lengths_.rollback(mark);
      }
      if (lengths_.checks_hold(s)) holds_.insert(&s);
      lengths_.learn(s);
      for (VarId r : s.results) def_[r] = &s;
    }
  }

  LengthFacts lengths_;
  std::unordered_map<VarId, const Stmt*> def_;
  std::unordered_map<VarId, std::size_t> uses_;
  std::unordered_set<const Stmt*> holds_;
};

// One packed update found: the DPERMUTE at `at` becomes `added`; `removed` go.
struct Rewrite {
  std::size_t at;
  std::set<std::size_t> removed;  // the DPERMUTE's included
  std::vector<Stmt> added;
};

// Finds packed updates among the statements of one block.
class Matcher {
 public:
  Matcher(Module& module, const FunctionFacts& facts, const Block& block)
      : module_(module), facts_(facts), stmts_(block.stmts) {
    for (std::size_t i = 0; i < stmts_.size(); ++i)
      for (VarId r : stmts_[i].results) position_[r] = i;
  }

  // r = DPERMUTE change(BPERMUTE v p sd psd) p v psd sd, where p psd = PACK INT (INDEX 0 1 sd)
  // flags sd, optionally preceded by NESL's check that p lies in [0, LENGTHS sd).
  std::optional<Rewrite> match(std::size_t at) const {
    const Stmt& put = stmts_[at];
    if (!is_op(&put, Op::DPermute) || put.args.size() != 5 || put.results.size() != 1 || !put.type)
      return std::nullopt;
    const VarId changed = put.args[0], positions = put.args[1], vector = put.args[2],
                packed_sd = put.args[3], sd = put.args[4];
    const auto pack_at = position(positions);
    if (!pack_at) return std::nullopt;
    const Stmt& pack = stmts_[*pack_at];
    if (!is_op(&pack, Op::Pack) || pack.type != TypeKeyword::Int || pack.args.size() != 3 ||
        pack.args[2] != sd || pack.results != std::vector<VarId>{positions, packed_sd})
      return std::nullopt;
    const auto index_at = position(pack.args[0]);
    if (!index_at) return std::nullopt;
    const Stmt& index = stmts_[*index_at];
    if (!is_op(&index, Op::Index) || index.args.size() != 3 || index.args[2] != sd ||
        !is_int_constant(facts_.def(index.args[0]), 0) ||
        !is_int_constant(facts_.def(index.args[1]), 1))
      return std::nullopt;
    Rewrite r{at, {at, *pack_at, *index_at}, {}};

    // The change: elementwise ops that cannot trap, over the gathered values and DISTs over the
    // packed descriptor.
    std::optional<std::size_t> gather_at;
    std::vector<std::size_t> change;
    std::unordered_set<VarId> seen;
    const std::vector<VarId> gather_args{vector, positions, sd, packed_sd};
    std::function<bool(VarId)> in_change = [&](VarId v) {
      if (seen.contains(v)) return true;
      const auto i = position(v);
      if (!i) return false;
      const Stmt& s = stmts_[*i];
      if (s.kind != StmtKind::Op || s.results.size() != 1) return false;
      if (s.op == Op::BPermute) {
        if (gather_at || s.args != gather_args || s.type != put.type) return false;
        gather_at = *i;
      } else if (s.op == Op::Dist) {
        if (s.args.size() != 2 || s.args[1] != packed_sd) return false;
        change.push_back(*i);
      } else if (is_elementwise(s.op) && !is_int_division(s)) {
        for (VarId arg : s.args)
          if (!in_change(arg)) return false;
        change.push_back(*i);
      } else {
        return false;
      }
      seen.insert(v);
      return change.size() <= kMaxChange;
    };
    if (!in_change(changed) || !gather_at) return std::nullopt;
    r.removed.insert(*gather_at);
    r.removed.insert(change.begin(), change.end());
    for (std::size_t j = *pack_at + 1; j < at; ++j)
      if (auto check = position_check(j, positions, packed_sd, sd))
        r.removed.insert(check->begin(), check->end());

    if (!safe_to_remove(r.removed, at)) return std::nullopt;
    // A DIST of a value made from the gathered ones would change length with them.
    for (std::size_t k : change)
      if (stmts_[k].op == Op::Dist && position(stmts_[k].args[0]) &&
          r.removed.contains(*position(stmts_[k].args[0])))
        return std::nullopt;

    // The change over the whole vector, then the choice per element.
    std::unordered_map<VarId, VarId> renamed{{stmts_[*gather_at].results[0], vector}};
    std::sort(change.begin(), change.end());
    for (std::size_t k : change) {
      Stmt s = stmts_[k];
      for (VarId& arg : s.args)
        if (auto it = renamed.find(arg); it != renamed.end()) arg = it->second;
      if (s.op == Op::Dist) s.args[1] = sd;
      const VarId fresh = module_.new_var(module_.var_types[s.results[0]]);
      renamed[s.results[0]] = fresh;
      s.results = {fresh};
      r.added.push_back(std::move(s));
    }
    Stmt select;
    select.kind = StmtKind::Op;
    select.op = Op::Select;
    select.type = put.type;
    select.args = {pack.args[1], renamed.at(changed), vector};
    select.results = put.results;
    select.where = put.where;
    r.added.push_back(std::move(select));
    return r;
  }

 private:
  std::optional<std::size_t> position(VarId v) const {
    auto it = position_.find(v);
    if (it == position_.end()) return std::nullopt;
    return it->second;
  }

  // The statements of NESL's check that the positions lie in their segments, when statement `j`
  // is its IF: IF (OR_REDUCE (OR (< p (DIST 0 psd)) (>= p (DIST (LENGTHS sd) psd))) psd), whose
  // THEN branch reports the error and stops and whose ELSE branch is empty. Positions from INDEX
  // 0 1 over sd lie in [0, LENGTHS sd) of their segment, so it never fires.
  std::optional<std::vector<std::size_t>> position_check(std::size_t j, VarId positions,
                                                         VarId packed_sd, VarId sd) const {
    const Stmt& s = stmts_[j];
    if (s.kind != StmtKind::If || !s.results.empty() || s.args.size() != 1 ||
        s.branches.size() != 2 || !s.branches[0].diverges || !s.branches[1].stmts.empty() ||
        !s.branches[1].yields.empty())
      return std::nullopt;
    std::vector<std::size_t> parts{j};
    auto op_here = [&](VarId v, Op op, std::size_t arity) -> const Stmt* {
      const auto i = position(v);
      if (!i || !is_op(&stmts_[*i], op) || stmts_[*i].args.size() != arity) return nullptr;
      parts.push_back(*i);
      return &stmts_[*i];
    };
    const Stmt* any = op_here(s.args[0], Op::OrReduce, 2);
    if (!any || any->args[1] != packed_sd) return std::nullopt;
    const Stmt* either = op_here(any->args[0], Op::Or, 2);
    if (!either) return std::nullopt;
    const Stmt* below = op_here(either->args[0], Op::Less, 2);
    const Stmt* above = op_here(either->args[1], Op::GreaterEq, 2);
    if (!below || !above || below->type != TypeKeyword::Int || above->type != TypeKeyword::Int ||
        below->args[0] != positions || above->args[0] != positions)
      return std::nullopt;
    const Stmt* zero = op_here(below->args[1], Op::Dist, 2);
    const Stmt* length = op_here(above->args[1], Op::Dist, 2);
    if (!zero || !length || zero->args[1] != packed_sd || length->args[1] != packed_sd ||
        !is_int_constant(facts_.def(zero->args[0]), 0))
      return std::nullopt;
    const Stmt* lengths = facts_.def(length->args[0]);
    if (!is_op(lengths, Op::Lengths) || lengths->args != std::vector<VarId>{sd}) return std::nullopt;
    return parts;
  }

  // Whether the statements `removed` (of this block) can go: none can fail (each length check
  // known to hold; the permutes' positions valid by construction), and what they define is read
  // only among them, but for the result of the DPERMUTE at `at`, which SELECT defines instead.
  bool safe_to_remove(const std::set<std::size_t>& removed, std::size_t at) const {
    std::unordered_map<VarId, std::size_t> reads;
    for (std::size_t k : removed) {
      const Stmt& s = stmts_[k];
      if (s.kind == StmtKind::Op && (has_effect(s.op) || !facts_.checks_hold(s))) return false;
      for (VarId a : s.args) ++reads[a];
      for (const Block& b : s.branches) count_uses(b, reads);
    }
    for (std::size_t k : removed) {
      if (k == at) continue;
      for (VarId v : stmts_[k].results)
        if (facts_.uses(v) != reads[v]) return false;
    }
    return true;
  }

  Module& module_;
  const FunctionFacts& facts_;
  const std::vector<Stmt>& stmts_;
  std::unordered_map<VarId, std::size_t> position_;  // a result's statement in the block
};

struct BlockRewrites {
  Block* block;
  std::vector<Rewrite> rewrites;
};

void collect(Module& module, const FunctionFacts& facts, Block& block,
             std::vector<BlockRewrites>& found) {
  const Matcher matcher(module, facts, block);
  BlockRewrites here{&block, {}};
  std::set<std::size_t> claimed;
  for (std::size_t at = 0; at < block.stmts.size(); ++at) {
    auto r = matcher.match(at);
    if (!r) continue;
    if (std::any_of(r->removed.begin(), r->removed.end(),
                    [&](std::size_t k) { return claimed.contains(k); }))
      continue;
    claimed.insert(r->removed.begin(), r->removed.end());
    here.rewrites.push_back(std::move(*r));
  }
  if (!here.rewrites.empty()) found.push_back(std::move(here));
  for (Stmt& s : block.stmts)
    for (Block& b : s.branches) collect(module, facts, b, found);
}

void apply(BlockRewrites& found) {
  std::unordered_map<std::size_t, Rewrite*> at;
  std::set<std::size_t> removed;
  for (Rewrite& r : found.rewrites) {
    at[r.at] = &r;
    removed.insert(r.removed.begin(), r.removed.end());
  }
  std::vector<Stmt>& stmts = found.block->stmts;
  std::vector<Stmt> kept;
  kept.reserve(stmts.size());
  for (std::size_t i = 0; i < stmts.size(); ++i) {
    if (auto it = at.find(i); it != at.end()) {
      for (Stmt& s : it->second->added) kept.push_back(std::move(s));
    } else if (!removed.contains(i)) {
      kept.push_back(std::move(stmts[i]));
    }
  }
  stmts = std::move(kept);
}

}  // namespace

void selects(Module& module, const PassOptions&) {
  const EntryFacts entry(module);
  for (Function& f : module.functions) {
    if (!f.lifted) continue;
    std::vector<BlockRewrites> found;
    {
      const FunctionFacts facts(f, entry);
      collect(module, facts, f.body, found);
    }
    // Blocks keep their addresses while an enclosing block's statements move (a statement's
    // branches move with their storage), so each is rewritten where it was found.
    for (BlockRewrites& b : found) apply(b);
  }
}

}  // namespace fopt
