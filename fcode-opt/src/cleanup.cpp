#include "fopt/cleanup.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "cvl/op_dispatch.hpp"
#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "fopt/op_facts.hpp"
#include "fopt/substitute.hpp"
#include "fopt/var_types.hpp"
#include "fopt/visitor.hpp"

namespace fopt {

namespace {

using vcode::Op;

// Statements whose value depends only on their operands, so one of two identical ones suffices.
// Failing ones qualify too: the first, which stays, fails the same way before the second runs.
bool shareable(const Stmt& s) {
  if (s.kind == StmtKind::Fused) return true;
  if (s.kind != StmtKind::Op || has_effect(s.op)) return false;
  switch (vcode::info(s.op).family) {
    case vcode::Family::Stack:
    case vcode::Family::Control:
    case vcode::Family::Structure:
      return s.op == Op::Const;
    default:
      return true;
  }
}

std::string key_of(const Stmt& s) {
  std::ostringstream key;
  key << static_cast<int>(s.kind) << ' ' << static_cast<int>(s.op) << ' '
      << (s.type ? static_cast<int>(*s.type) : -1) << ' ' << s.superop;
  if (s.op == Op::Const && s.kind == StmtKind::Op) {
    const auto& c = s.constant;
    key << " c" << static_cast<int>(c.type) << c.vector_form
        << (c.stream_name ? *c.stream_name : "");
    for (auto i : c.ints) key << ',' << i;
    // The bits: equal values are not always the same constant (0.0 and -0.0, NaN payloads).
    for (double f : c.floats) key << ';' << std::bit_cast<std::uint64_t>(f);
  }
  key << " |";
  for (VarId v : s.args) key << ' ' << v;
  return key.str();
}

// `available` holds the values computed in the blocks around this one, before it. What this block
// adds is forgotten when it ends, so that neither a sibling branch nor the code after the IF uses
// it (one map with an undo list: a copy per branch costs quadratic time in deep nests).
void share(Block& block, std::unordered_map<std::string, std::vector<VarId>>& available,
           Substitution& same) {
  std::vector<std::string> added;
  std::vector<Stmt> kept;
  for (Stmt& s : block.stmts) {
    for (VarId& v : s.args) v = resolve(same, v);
    for (Block& b : s.branches) share(b, available, same);
    if (shareable(s)) {
      auto [it, fresh] = available.try_emplace(key_of(s), s.results);
      if (!fresh) {
        for (std::size_t r = 0; r < s.results.size(); ++r) same[s.results[r]] = it->second[r];
        continue;
      }
      added.push_back(it->first);
    }
    kept.push_back(std::move(s));
  }
  block.stmts = std::move(kept);
  for (VarId& v : block.yields) v = resolve(same, v);
  for (const std::string& key : added) available.erase(key);
}

// An INT scalar constant's value, if `v` is one.
std::optional<std::int32_t> int_scalar(const std::unordered_map<VarId, const Stmt*>& defs,
                                       VarId v) {
  auto it = defs.find(v);
  if (it == defs.end()) return std::nullopt;
  const Stmt& d = *it->second;
  if (d.kind != StmtKind::Op || d.op != Op::Const || d.constant.type != vcode::TypeKeyword::Int ||
      d.constant.stream_name || d.constant.ints.size() != 1)
    return std::nullopt;
  return d.constant.ints[0];
}

// Evaluates elementwise ops on INT constants (arithmetic, shifts, bit operations, comparisons,
// I_TO_B) at compile time, with the interpreter's own scalar semantics.
std::optional<vcode::Constant> fold(const Stmt& s,
                                    const std::unordered_map<VarId, const Stmt*>& defs) {
  if (s.kind != StmtKind::Op || !is_elementwise(s.op)) return std::nullopt;
  if ((s.type ? *s.type : vcode::implied_type(s.op)) != vcode::TypeKeyword::Int)
    return std::nullopt;
  std::int32_t x[2] = {0, 0};
  if (s.args.size() > 2) return std::nullopt;
  for (std::size_t a = 0; a < s.args.size(); ++a) {
    auto value = int_scalar(defs, s.args[a]);
    if (!value) return std::nullopt;
    x[a] = *value;
  }
  // The op's own rule from the shared semantics, for ops on INT operands with an INT or BOOL
  // result; INT / and % are left to run time, where a zero divisor is an error.
  return cvl::visit_elementwise(
      s.op, cvl::Type::Int,
      [&]<Op kOp, class Sem, cvl::Type kType>() -> std::optional<vcode::Constant> {
        using Sig = cvl::Signature<kOp, kType>;
        constexpr bool int_operands = [] {
          for (std::size_t k = 0; k < Sig::arity; ++k)
            if (Sig::operand(k) != cvl::Type::Int) return false;
          return true;
        }();
        if constexpr (!int_operands || cvl::checks_divisor<Sem> || Sig::result == cvl::Type::Float) {
          return std::nullopt;
        } else {
          vcode::Constant c;
          c.type = cvl::to_keyword(Sig::result);
          if constexpr (Sig::arity == 1)
            c.ints = {static_cast<std::int32_t>(Sem::apply(x[0]))};
          else
            c.ints = {static_cast<std::int32_t>(Sem::apply(x[0], x[1]))};
          return c;
        }
      });
}

void fold_block(Block& block, std::unordered_map<VarId, const Stmt*>& defs) {
  for (Stmt& s : block.stmts) {
    for (Block& b : s.branches) fold_block(b, defs);
    if (auto c = fold(s, defs)) {
      s.op = Op::Const;
      s.type = c->type;
      s.constant = *c;
      s.args.clear();
    }
    for (VarId r : s.results) defs[r] = &s;
  }
}

// The statements (by first result) that cannot fail where they stand: those that fail only on a
// length mismatch, with lengths known to agree from the statements before them, and permutes
// whose indices an earlier permute of the same kind checked against the same descriptors (a
// PERMUTE or BPERMUTE fails on an index by those alone, whatever values it moves). Dropping one
// of them loses no fact later statements rely on: what its run would check was known already.
class LengthSafe {
 public:
  std::unordered_set<VarId> find(const Function& f, const EntryFacts& entry) {
    entry.assume(f, facts_);
    walk(f.body);
    return std::move(safe_);
  }

 private:
  struct IndexCheck {
    Op op;
    VarId indices, from, to;  // the descriptors of the source and the destination
    bool operator==(const IndexCheck&) const = default;
  };

  static std::optional<IndexCheck> index_check(const Stmt& s) {
    if (s.kind != StmtKind::Op) return std::nullopt;
    if (s.op == Op::BPermute) return IndexCheck{s.op, s.args[1], s.args[2], s.args[3]};
    if (s.op == Op::Permute) return IndexCheck{s.op, s.args[1], s.args[2], s.args[2]};
    return std::nullopt;
  }

  void walk(const Block& block) {
    for (const Stmt& s : block.stmts) {
      const std::optional<IndexCheck> check = index_check(s);
      const bool checked_before =
          check && std::find(checked_.begin(), checked_.end(), *check) != checked_.end();
      if (!s.results.empty() && (fails_only_on_lengths(s) || checked_before) &&
          facts_.checks_hold(s))
        safe_.insert(s.results[0]);
      for (const Block& b : s.branches) {
        const std::size_t mark = facts_.mark();
        const std::size_t checks = checked_.size();
        walk(b);
        facts_.rollback(mark);
        checked_.resize(checks);
      }
      facts_.learn(s);
      if (check && !checked_before) checked_.push_back(*check);
    }
  }

  LengthFacts facts_;
  std::vector<IndexCheck> checked_;  // in the blocks around the statement, before it
  std::unordered_set<VarId> safe_;
};

// Removable when unused: pure and unable to fail, not even by a type error.
bool droppable(const Stmt& s, const Module& module, const std::unordered_set<VarId>& length_safe) {
  if (s.kind == StmtKind::Fused) return !s.may_fail;
  if (s.kind != StmtKind::Op || !operands_well_typed(s, module)) return false;
  return never_fails(s.op) || (!s.results.empty() && length_safe.contains(s.results[0]));
}

// One backward sweep: drops unused droppable statements and unused IF results.
bool sweep(Block& block, std::unordered_map<VarId, std::size_t>& uses, const Module& module,
           const std::unordered_set<VarId>& length_safe) {
  bool changed = false;
  for (auto it = block.stmts.rbegin(); it != block.stmts.rend(); ++it) {
    Stmt& s = *it;
    auto unused = [&](VarId v) { return uses[v] == 0; };
    if (s.kind == StmtKind::If) {
      for (std::size_t r = s.results.size(); r-- > 0;) {
        if (!unused(s.results[r])) continue;
        for (Block& b : s.branches)
          if (!b.diverges) {
            --uses[b.yields[r]];
            b.yields.erase(b.yields.begin() + r);
          }
        s.results.erase(s.results.begin() + r);
        changed = true;
      }
      for (Block& b : s.branches) changed |= sweep(b, uses, module, length_safe);
      const bool empty = s.results.empty() && s.branches[0].stmts.empty() &&
                         s.branches[1].stmts.empty() && !s.branches[0].diverges &&
                         !s.branches[1].diverges;
      if (empty) {
        --uses[s.args[0]];
        s.args.clear();
        s.kind = StmtKind::Op;  // marked dead below
        s.op = Op::Const;
        s.results.clear();
        s.branches.clear();
        s.type.reset();
        s.constant = {};
        s.superop = UINT32_MAX;  // tombstone
        changed = true;
      }
      continue;
    }
    if (droppable(s, module, length_safe) && std::all_of(s.results.begin(), s.results.end(), unused)) {
      for (VarId v : s.args) --uses[v];
      s.superop = UINT32_MAX;
      s.kind = StmtKind::Op;
      s.op = Op::Const;
      s.results.clear();
      s.args.clear();
      changed = true;
    }
  }
  std::erase_if(block.stmts, [](const Stmt& s) {
    return s.kind == StmtKind::Op && s.op == Op::Const && s.superop == UINT32_MAX;
  });
  return changed;
}

// Drops superoperators no FUSED uses any more and numbers the rest 0, 1, ...
void renumber_superops(Module& module) {
  struct Used : Mutator {
    std::vector<bool> used;
    void visit_Fused(Stmt& s) override { used[s.superop] = true; }
  } uses;
  uses.used.assign(module.superops.size(), false);
  for (Function& f : module.functions)
    if (f.lifted) uses.block(f.body);
  struct Renumber : Mutator {
    std::vector<std::uint32_t> new_id;
    void visit_Fused(Stmt& s) override { s.superop = new_id[s.superop]; }
  } renumber;
  renumber.new_id.assign(module.superops.size(), 0);
  std::vector<vcode::SuperOp> kept;
  for (std::size_t i = 0; i < module.superops.size(); ++i) {
    if (!uses.used[i]) continue;
    renumber.new_id[i] = static_cast<std::uint32_t>(kept.size());
    kept.push_back(std::move(module.superops[i]));
    kept.back().id = renumber.new_id[i];
  }
  module.superops = std::move(kept);
  for (Function& f : module.functions)
    if (f.lifted) renumber.block(f.body);
}

}  // namespace

void cleanup(Module& module, const PassOptions&) {
  for (Function& f : module.functions) {
    if (!f.lifted) continue;
    std::unordered_map<VarId, const Stmt*> defs;
    fold_block(f.body, defs);
    Substitution same;
    std::unordered_map<std::string, std::vector<VarId>> available;
    share(f.body, available, same);
  }
  // Parameters can go only where every caller is ours (an unoptimized caller pushes them all).
  const std::set<std::string> fixed_signature = functions_with_fixed_signature(module);
  for (bool changed = true; changed;) {
    changed = false;
    const EntryFacts entry(module);
    for (Function& f : module.functions) {
      if (!f.lifted) continue;
      std::unordered_map<VarId, std::size_t> uses;
      count_uses(f.body, uses);
      const std::unordered_set<VarId> length_safe = LengthSafe().find(f, entry);
      while (sweep(f.body, uses, module, length_safe)) changed = true;
    }
    for (Function& f : module.functions) {
      if (!f.lifted || fixed_signature.contains(f.name)) continue;
      std::unordered_map<VarId, std::size_t> uses;
      count_uses(f.body, uses);
      std::vector<bool> unused(f.params.size());
      bool any = false;
      for (std::size_t p = 0; p < f.params.size(); ++p) any |= unused[p] = uses[f.params[p]] == 0;
      if (!any) continue;
      changed = true;
      auto keep = [&](std::vector<VarId>& list) {
        std::vector<VarId> out;
        for (std::size_t p = 0; p < list.size(); ++p)
          if (!unused[p]) out.push_back(list[p]);
        list = std::move(out);
      };
      for (Function& g : module.functions)
        if (g.lifted)
          for_each_stmt(g.body, [&](Stmt& s) {
            if (s.kind == StmtKind::Call && s.callee == f.name) keep(s.args);
          });
      keep(f.params);
    }
  }
  renumber_superops(module);
}

}  // namespace fopt
