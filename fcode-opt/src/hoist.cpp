#include "fopt/hoist.hpp"

#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "fopt/op_facts.hpp"
#include "fopt/var_types.hpp"

namespace fopt {

namespace {

using vcode::Op;

class Hoister {
 public:
  Hoister(const Module& module, Function& f) : module_(module), f_(f) {}

  void run(const EntryFacts& entry) {
    entry.assume(f_, facts_);
    learn(f_.body);
    count(f_.body);
    hoist_block(f_.body);
  }

 private:
  // Scalars by construction or from the function's entry (no branch facts), which is all
  // hoisting may rely on: these hold everywhere in the body.
  void learn(const Block& block) {
    for (const Stmt& s : block.stmts) {
      facts_.learn(s, false);
      for (const Block& b : s.branches) learn(b);
    }
  }

  bool scalar(VarId v) const { return facts_.same(LengthFacts::length(v), LengthFacts::one); }

  // Elementwise over scalars (so no length can mismatch), no INT division (a zero divisor), and
  // operands of the right type on every path (a type error must not move to where none was).
  bool candidate(const Stmt& s) const {
    if (s.kind != StmtKind::Op || !is_elementwise(s.op)) return false;
    if (!operands_well_typed(s, module_)) return false;
    if (is_int_division(s)) return false;
    for (VarId v : s.args)
      if (!scalar(v)) return false;
    return true;
  }

  static std::string key(const Stmt& s) {
    std::ostringstream k;
    k << static_cast<int>(s.op) << ' ' << (s.type ? static_cast<int>(*s.type) : -1);
    for (VarId v : s.args) k << ' ' << v;
    return k.str();
  }

  void count(const Block& block) {
    for (const Stmt& s : block.stmts) {
      if (candidate(s)) ++occurrences_[key(s)];
      for (const Block& b : s.branches) count(b);
    }
  }

  // Hoists out of nested IFs first, then lifts this block's IFs' movable statements before them.
  void hoist_block(Block& block) {
    std::vector<Stmt> out;
    for (Stmt& s : block.stmts) {
      if (s.kind == StmtKind::If) {
        std::vector<Stmt> lifted;
        for (Block& b : s.branches) {
          hoist_block(b);
          lift_out(b, lifted);
        }
        for (Stmt& l : lifted) out.push_back(std::move(l));
      }
      out.push_back(std::move(s));
    }
    block.stmts = std::move(out);
  }

  // Moves the leading-or-not statements of `branch` whose operands are all defined outside it.
  void lift_out(Block& branch, std::vector<Stmt>& lifted) {
    std::unordered_set<VarId> inside;
    std::vector<Stmt> kept;
    for (Stmt& s : branch.stmts) {
      bool movable = candidate(s) && occurrences_[key(s)] > 1;
      for (VarId v : s.args) movable = movable && !inside.contains(v);
      if (movable) {
        lifted.push_back(std::move(s));
        continue;
      }
      for_each_result(s, [&](VarId v) { inside.insert(v); });
      kept.push_back(std::move(s));
    }
    branch.stmts = std::move(kept);
  }

  template <class F>
  static void for_each_result(const Stmt& s, F&& f) {
    for (VarId v : s.results) f(v);
    for (const Block& b : s.branches)
      for (const Stmt& inner : b.stmts) for_each_result(inner, f);
  }

  const Module& module_;
  Function& f_;
  LengthFacts facts_;
  std::map<std::string, int> occurrences_;
};

}  // namespace

void hoist(Module& module, const PassOptions&) {
  const EntryFacts entry(module);
  for (Function& f : module.functions)
    if (f.lifted) Hoister(module, f).run(entry);
}

}  // namespace fopt
