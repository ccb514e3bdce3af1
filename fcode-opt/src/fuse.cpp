#include "fopt/fuse.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "fopt/op_facts.hpp"
#include "fopt/var_types.hpp"

namespace fopt {

namespace {

using vcode::Family;
using vcode::Op;
using vcode::SuperOp;
using vcode::SuperOpNode;
using vcode::TypeKeyword;
using Kind = SuperOpNode::Kind;

// What the analysis found out about one statement that a superoperator could contain.
struct Candidate {
  Stmt* stmt = nullptr;
  bool member = false;  // may be absorbed into a consumer (pure, cannot fail)
  bool scalar_dist = false;  // a DIST of one value over one segment: the same at every element
  std::size_t timer_epoch = 0;
  std::size_t position = 0;  // in program order
};

bool known_kind(VarType t) {
  return t == VarType::Int || t == VarType::Float || t == VarType::Bool || t == VarType::Segdes;
}

class Fuser {
 public:
  Fuser(Module& module, const PassOptions& options) : module_(module), options_(options) {}

  void run(Function& f, const EntryFacts& entry) {
    candidates_.clear();
    defs_.clear();
    uses_.clear();
    entry.assume(f, facts_);
    analyse(f.body);
    count_uses(f.body);
    decide();
    rewrite(f.body);
  }

 private:
  struct Use {
    const Stmt* user;  // nullptr: a yielded value
    std::size_t arg;
    std::vector<Block*> path;  // the IF branches around the use
  };

  // ---- analysis: which statements can be nodes, with the length facts known where they run
  const Stmt* def(VarId v) const {
    auto it = defs_.find(v);
    return it == defs_.end() ? nullptr : it->second;
  }

  const vcode::Constant* scalar_constant(VarId v) const {
    const Stmt* d = def(v);
    if (!d || d->kind != StmtKind::Op || d->op != Op::Const) return nullptr;
    const auto& c = d->constant;
    if (c.stream_name || c.type == TypeKeyword::Segdes || c.type == TypeKeyword::Char)
      return nullptr;
    const std::size_t n = c.type == TypeKeyword::Float ? c.floats.size() : c.ints.size();
    return n == 1 ? &c : nullptr;
  }

  bool types_known(const Stmt& s) const {
    for (VarId v : s.args)
      if (!known_kind(module_.var_types[v])) return false;
    for (VarId v : s.results)
      if (!known_kind(module_.var_types[v])) return false;
    return true;
  }

  // An INT division or remainder fails on a zero divisor (and INT_MIN / -1), unless the divisor
  // is a constant that rules it out.
  bool division_may_fail(const Stmt& s) const {
    if (!is_int_division(s)) return false;
    const Stmt* d = def(s.args[1]);
    if (d && d->kind == StmtKind::Op && d->op == Op::Dist)
      if (const auto* c = scalar_constant(d->args[0]); c && c->type == TypeKeyword::Int)
        return c->ints[0] == 0 || c->ints[0] == -1;
    return true;
  }

  // Per-segment leaves (DIST values, INDEX start/stride) must be constants or operands.
  bool leaf_ok(VarId v) const { return scalar_constant(v) || known_kind(module_.var_types[v]); }

  // A node's operands must have, on every path, the types its op requires: a superoperator's
  // operand kinds come from the variables' types, and the definition must type-check.
  void classify(Stmt& s) {
    if (s.kind != StmtKind::Op || !types_known(s) || !operands_well_typed(s, module_)) return;
    const Family family = vcode::info(s.op).family;
    Candidate c;
    c.stmt = &s;
    c.timer_epoch = timer_epoch_;
    c.position = position_;
    const auto len = LengthFacts::length;
    if (family == Family::Elementwise) {
      for (VarId v : s.args)
        if (!facts_.same(len(v), len(s.args[0]))) return;
      c.member = !division_may_fail(s);
    } else if (s.op == Op::Dist) {
      if (!leaf_ok(s.args[0])) return;
      c.member = facts_.same(len(s.args[0]), len(s.args[1]));
      c.scalar_dist = c.member && facts_.same(len(s.args[0]), LengthFacts::one);
    } else if (s.op == Op::Index) {
      if (!leaf_ok(s.args[0]) || !leaf_ok(s.args[1])) return;
      c.member = facts_.same(len(s.args[0]), len(s.args[2])) &&
                 facts_.same(len(s.args[1]), len(s.args[2]));
    } else if (family == Family::Scan || family == Family::Reduce) {
      if (!facts_.same(len(s.args[0]), LengthFacts::sum(s.args[1]))) return;
      c.member = false;  // a root only
    } else {
      return;
    }
    candidates_[s.results[0]] = c;
  }

  void analyse(Block& block) {
    for (Stmt& s : block.stmts) {
      ++position_;
      for (VarId r : s.results) defs_[r] = &s;
      if (s.kind == StmtKind::Op && (s.op == Op::StartTimer || s.op == Op::StopTimer))
        ++timer_epoch_;
      classify(s);
      if (s.kind == StmtKind::If) {
        for (int b = 0; b < 2; ++b) {
          const std::size_t mark = facts_.mark();
          if (auto eq = equal_scalars(s, b))
            facts_.unite(LengthFacts::sum(eq->first), LengthFacts::sum(eq->second));
          analyse(s.branches[b]);
          facts_.rollback(mark);
        }
        guard_facts(s);
      }
      facts_.learn(s);
    }
  }

  // If branch `b` runs only when two INT scalars are equal (IF (= a b) THEN, or IF (!= a b)
  // ELSE), those scalars.
  std::optional<std::pair<VarId, VarId>> equal_scalars(const Stmt& s, int b) const {
    const Stmt* cond = def(s.args[0]);
    if (!cond || cond->kind != StmtKind::Op || cond->type != TypeKeyword::Int) return std::nullopt;
    if ((cond->op == Op::Equal && b == 0) || (cond->op == Op::NotEqual && b == 1))
      if (facts_.same(LengthFacts::length(cond->args[0]), LengthFacts::one))
        return std::pair{cond->args[0], cond->args[1]};
    return std::nullopt;
  }

  // After an IF whose other branch cannot return, the condition of the returning one holds.
  void guard_facts(const Stmt& s) {
    for (int b = 0; b < 2; ++b)
      if (!s.branches[b].diverges && s.branches[1 - b].diverges)
        if (auto eq = equal_scalars(s, b))
          facts_.unite(LengthFacts::sum(eq->first), LengthFacts::sum(eq->second));
  }

  // Every use of every variable, with the IF branches it sits in (from the function's body down).
  void count_uses(Block& block) {
    for (Stmt& s : block.stmts) {
      for (VarId r : s.results) def_path_[r] = path_;
      for (std::size_t a = 0; a < s.args.size(); ++a) uses_[s.args[a]].push_back({&s, a, path_});
      for (Block& b : s.branches) {
        path_.push_back(&b);
        count_uses(b);
        path_.pop_back();
      }
    }
    for (VarId v : block.yields) uses_[v].push_back({nullptr, 0, path_});
  }

  // The innermost IF branch holding every use in `list`, if it lies strictly inside the block
  // defining `v`: a value only those uses need is computed there, not on every path.
  Block* sink_target(VarId v, const std::vector<const Use*>& list) const {
    if (list.empty()) return nullptr;
    std::vector<Block*> common = list[0]->path;
    for (const Use* u : list) {
      std::size_t n = 0;
      while (n < common.size() && n < u->path.size() && common[n] == u->path[n]) ++n;
      common.resize(n);
    }
    const auto& home = def_path_.at(v);
    if (common.size() <= home.size() || !std::equal(home.begin(), home.end(), common.begin()))
      return nullptr;
    return common.back();
  }

  // ---- decision: which candidates are computed inside their consumers
  const Candidate* candidate(VarId v) const {
    auto it = candidates_.find(v);
    return it == candidates_.end() ? nullptr : &it->second;
  }

  // Can the consumer `s` take its operand `a` (defined by candidate `c`) inside itself?
  bool absorbs(const Stmt* s, std::size_t a, const Candidate& c) const {
    if (!s || s->results.empty()) return false;
    const Candidate* consumer = candidate(s->results[0]);
    if (!consumer || consumer->timer_epoch != c.timer_epoch) return false;
    const Family family = vcode::info(s->op).family;
    if (family == Family::Elementwise) return true;
    if (family == Family::Scan || family == Family::Reduce) return a == 0;
    return false;  // DIST/INDEX read per-segment values: operands or constants only
  }

  // What recomputing `v` (candidate `c`) in each consumer costs per element, from its operands'
  // costs: the vectors it reads. A value the same at every element reads none (cvl-cpu computes
  // it once per call).
  void cost(VarId v, const Candidate& c) {
    RecomputeCost& mine = cost_[v];
    const Stmt& s = *c.stmt;
    if (vcode::info(s.op).family != Family::Elementwise) {
      mine.invariant = c.scalar_dist;  // DIST and INDEX read per-segment values only
      return;
    }
    mine.invariant = c.member;
    for (VarId a : s.args) {
      auto found = cost_.find(a);
      const bool invariant = found != cost_.end() && found->second.invariant;
      mine.invariant = mine.invariant && invariant;
      if (!invariant) add_reads(a, mine.reads);
    }
    if (mine.invariant) mine.reads.clear();
  }

  // Adds to `reads` (once each) the vectors that reading operand `a` costs per element: those its
  // expansion reads, or `a` itself.
  void add_reads(VarId a, std::vector<VarId>& reads) const {
    auto add = [&](VarId read) {
      if (std::find(reads.begin(), reads.end(), read) == reads.end()) reads.push_back(read);
    };
    auto found = cost_.find(a);
    if (expanded_.contains(a) && found != cost_.end())
      for (VarId leaf : found->second.reads) add(leaf);
    else
      add(a);
  }

  // A multi-use value is recomputed in its consumers when that reads no more memory than storing
  // it and reading it back: it is the same at every element; or it is small and adds at most one
  // vector to what each consumer reads through its other operands (bh's `cm_pos - ppos`, read by
  // a dozen force terms, is stored: recomputed, each term would read both vectors); or no user
  // needs it stored and it is arithmetic on at most one vector.
  bool worth_recomputing(VarId v, const Candidate& c, std::size_t size, bool stored_anyway) const {
    const RecomputeCost& cost = cost_.at(v);
    if (cost.invariant) return true;
    if (size <= options_.fuse_duplicate_limit && adds_at_most_one_read(v, c)) return true;
    return !stored_anyway && cost.reads.size() <= 1 && size <= 4 * options_.fuse_duplicate_limit;
  }

  // Whether each consumer that can take v inside itself reads all but at most one of the vectors
  // v's expansion reads through its other operands (as far as they are decided).
  bool adds_at_most_one_read(VarId v, const Candidate& c) const {
    const std::vector<VarId>& reads = cost_.at(v).reads;
    if (reads.size() <= 1) return true;
    for (const Use& u : uses_.at(v)) {
      if (!absorbs(u.user, u.arg, c)) continue;
      std::vector<VarId> theirs;
      for (std::size_t a = 0; a < u.user->args.size(); ++a)
        if (a != u.arg) add_reads(u.user->args[a], theirs);
      const auto added = std::count_if(reads.begin(), reads.end(), [&](VarId r) {
        return std::find(theirs.begin(), theirs.end(), r) == theirs.end();
      });
      if (added > 1) return false;
    }
    return true;
  }

  void decide() {
    std::vector<std::pair<std::size_t, VarId>> order;
    for (const auto& [v, c] : candidates_) order.push_back({c.position, v});
    std::sort(order.begin(), order.end());
    for (const auto& [position, v] : order) {
      const Candidate& c = candidates_.at(v);
      std::size_t size = 1;
      for (std::size_t a = 0; a < c.stmt->args.size(); ++a)
        size += expanded_.contains(c.stmt->args[a]) ? size_[c.stmt->args[a]] : 1;
      size_[v] = size;
      cost(v, c);
      if (!c.member || size >= options_.fuse_max_nodes) continue;
      const auto& list = uses_[v];
      if (list.empty()) continue;
      std::vector<const Use*> others;
      for (const Use& u : list)
        if (!absorbs(u.user, u.arg, c)) others.push_back(&u);
      const bool small = worth_recomputing(v, c, size, !others.empty());
      if (others.empty() && (list.size() == 1 || small)) {
        inlined_.insert(v);
        expanded_.insert(v);
        continue;
      }
      // Still needed as a vector by some users: computed where only they run, and recomputed
      // inside the consumers that can take it.
      const bool expand = small && others.size() < list.size();
      if (expand) expanded_.insert(v);
      std::vector<const Use*> all;
      for (const Use& u : list) all.push_back(&u);
      if (Block* target = sink_target(v, expand ? others : all)) sink_[v] = target;
    }
  }

  // ---- rewrite: materialized candidates with absorbed operands become FUSED statements
  struct Builder {
    SuperOp op;
    std::vector<VarId> operands;

    std::uint32_t add(SuperOpNode node) {
      op.nodes.push_back(node);
      return static_cast<std::uint32_t>(op.nodes.size() - 1);
    }
  };

  std::uint32_t operand(Builder& b, VarId v) {
    std::uint32_t k = 0;
    while (k < b.operands.size() && b.operands[k] != v) ++k;
    if (k == b.operands.size()) {
      b.operands.push_back(v);
      b.op.operands.push_back(*keyword_of(module_.var_types[v]));
    }
    SuperOpNode node;
    node.kind = Kind::Operand;
    node.operand = k;
    node.result = b.op.operands[k];
    return b.add(node);
  }

  std::uint32_t constant(Builder& b, const vcode::Constant& c) {
    SuperOpNode node;
    node.kind = Kind::Constant;
    node.type = node.result = c.type;
    if (c.type == TypeKeyword::Float)
      node.float_value = c.floats[0];
    else
      node.int_value = c.ints[0];
    return b.add(node);
  }

  std::uint32_t leaf(Builder& b, VarId v) {
    if (const auto* c = scalar_constant(v)) return constant(b, *c);
    return operand(b, v);
  }

  std::uint32_t value(Builder& b, VarId v) {
    if (!expanded_.contains(v)) return operand(b, v);
    return expression(b, *candidates_.at(v).stmt);
  }

  std::uint32_t expression(Builder& b, const Stmt& s) {
    SuperOpNode node;
    node.op = s.op;
    node.type = s.type ? *s.type : vcode::implied_type(s.op);
    node.result = vcode::result_type_of(s.op, node.type);
    const Family family = vcode::info(s.op).family;
    std::vector<std::uint32_t> args;
    if (family == Family::Elementwise) {
      node.kind = Kind::Elementwise;
      for (VarId v : s.args) args.push_back(value(b, v));
    } else if (s.op == Op::Dist) {
      node.kind = Kind::Dist;
      node.result = node.type;
      args = {leaf(b, s.args[0]), operand(b, s.args[1])};
    } else if (s.op == Op::Index) {
      node.kind = Kind::Index;
      node.result = TypeKeyword::Int;
      args = {leaf(b, s.args[0]), leaf(b, s.args[1]), operand(b, s.args[2])};
    } else {
      node.kind = family == Family::Scan ? Kind::Scan : Kind::Reduce;
      node.result = node.type;
      args = {value(b, s.args[0]), operand(b, s.args[1])};
    }
    node.arity = static_cast<std::uint8_t>(args.size());
    for (std::size_t a = 0; a < args.size(); ++a) node.args[a] = args[a];
    return b.add(node);
  }

  // Worth a superoperator: something was absorbed, or a constant replaces an operand. DIST and
  // INDEX absorb nothing (absorbs): an operand computed elsewhere too stays an operand of theirs,
  // and a superoperator of them alone is the plain instruction, run more slowly.
  bool worth_fusing(const Stmt& s) const {
    if (s.op == Op::Dist) return scalar_constant(s.args[0]) != nullptr;
    if (s.op == Op::Index) return scalar_constant(s.args[0]) || scalar_constant(s.args[1]);
    for (VarId v : s.args)
      if (expanded_.contains(v)) return true;
    return false;
  }

  std::uint32_t intern(SuperOp op) {
    // Node equality compares FLOAT constants by their bits: 0.0 and -0.0 stay two definitions.
    for (const SuperOp& existing : module_.superops)
      if (existing.operands == op.operands && existing.nodes == op.nodes) return existing.id;
    op.id = static_cast<std::uint32_t>(module_.superops.size());
    module_.superops.push_back(std::move(op));
    return module_.superops.back().id;
  }

  // Builds every FUSED statement first (the expressions read the original statements), then
  // replaces the statements.
  void prepare(Block& block) {
    for (Stmt& s : block.stmts) {
      for (Block& b : s.branches) prepare(b);
      if (s.kind != StmtKind::Op || s.results.empty() || !candidate(s.results[0])) continue;
      if (inlined_.contains(s.results[0]) || !worth_fusing(s)) continue;
      Builder b;
      expression(b, s);
      Stmt fused;
      fused.kind = StmtKind::Fused;
      fused.where = s.where;
      fused.superop = intern(std::move(b.op));
      fused.may_fail = !candidate(s.results[0])->member;  // absorbed operands never fail
      fused.args = std::move(b.operands);
      fused.results = s.results;
      replacement_.emplace(s.results[0], std::move(fused));
    }
  }

  void replace(Block& block) {
    std::vector<Stmt> out;
    if (auto sunk = sunk_.find(&block); sunk != sunk_.end()) {
      for (Stmt& s : sunk->second) out.push_back(std::move(s));
      sunk_.erase(sunk);
    }
    for (Stmt& s : block.stmts) {
      std::vector<Stmt>* into = &out;
      if (s.kind == StmtKind::Op && !s.results.empty()) {
        if (inlined_.contains(s.results[0])) continue;
        if (auto it = sink_.find(s.results[0]); it != sink_.end()) into = &sunk_[it->second];
        if (auto it = replacement_.find(s.results[0]); it != replacement_.end()) {
          into->push_back(std::move(it->second));
          continue;
        }
      }
      for (Block& b : s.branches) replace(b);
      into->push_back(std::move(s));
    }
    block.stmts = std::move(out);
  }

  void rewrite(Block& block) {
    prepare(block);
    replace(block);
  }

  Module& module_;
  const PassOptions& options_;
  LengthFacts facts_;
  std::size_t timer_epoch_ = 0, position_ = 0;
  std::unordered_map<VarId, const Stmt*> defs_;
  std::unordered_map<VarId, Candidate> candidates_;
  std::unordered_map<VarId, std::vector<Use>> uses_;
  std::unordered_map<VarId, std::vector<Block*>> def_path_;
  std::vector<Block*> path_;
  std::unordered_set<VarId> inlined_;       // computed only inside its consumers
  std::unordered_set<VarId> expanded_;      // computed inside its consumers (inlined_ and more)
  std::unordered_map<VarId, Block*> sink_;  // moved to the start of this branch
  std::unordered_map<const Block*, std::vector<Stmt>> sunk_;
  std::unordered_map<VarId, Stmt> replacement_;
  std::unordered_map<VarId, std::size_t> size_;
  struct RecomputeCost {
    std::vector<VarId> reads;  // the vectors an expansion reads per element
    bool invariant = false;    // it is the same at every element
  };
  std::unordered_map<VarId, RecomputeCost> cost_;
};

}  // namespace

void fuse(Module& module, const PassOptions& options) {
  const EntryFacts entry(module);
  for (Function& f : module.functions) {
    if (!f.lifted) continue;
    Fuser(module, options).run(f, entry);
  }
}

}  // namespace fopt
