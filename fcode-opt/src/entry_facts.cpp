#include "fopt/entry_facts.hpp"

#include <map>
#include <set>
#include <utility>

namespace fopt {

namespace {

using Node = LengthFacts::Node;

// Node k of a function's parameter partition, for the variables `vars` standing for them.
Node partition_node(const std::vector<VarId>& vars, std::size_t k) {
  if (k == 0) return LengthFacts::one;
  const VarId v = vars[(k - 1) / 2];
  return k % 2 == 1 ? LengthFacts::length(v) : LengthFacts::sum(v);
}

// Each node's class named by its first node, from any labels of the classes.
template <class Label>
std::vector<std::uint32_t> canonical(const std::vector<Label>& labels) {
  std::map<Label, std::uint32_t> first;
  std::vector<std::uint32_t> out(labels.size());
  for (std::size_t k = 0; k < labels.size(); ++k)
    out[k] = first.try_emplace(labels[k], static_cast<std::uint32_t>(k)).first->second;
  return out;
}

// Rounds before giving up on a fixpoint (and on every fact): each round carries facts one call
// deeper, and NESL programs' call graphs after inlining are shallow.
constexpr int kMaxRounds = 64;

}  // namespace

// The greatest fixpoint: every function starts assumed to be entered with all its parameter
// nodes equal (top), and each round keeps only what holds at every call under the previous
// round's assumptions, until nothing changes. Sound by induction on the calls made: a call sits
// in an activation whose own entry facts held, so the facts at the call hold, and they include
// the callee's. A function never called keeps top, harmlessly (its body never runs), and gets
// no facts here.
EntryFacts::EntryFacts(const Module& module) {
  const std::set<std::string> fixed = functions_with_fixed_signature(module);
  std::set<std::string> top;
  for (const Function& f : module.functions)
    if (f.lifted && !fixed.contains(f.name)) top.insert(f.name);
  for (int round = 0; round < kMaxRounds; ++round) {
    std::unordered_map<std::string, Partition> seen;
    for (const Function& f : module.functions) {
      if (!f.lifted) continue;
      LengthFacts facts;
      if (top.contains(f.name)) {
        for (std::size_t k = 1; k < 2 * f.params.size() + 1; ++k)
          facts.unite(partition_node(f.params, k), LengthFacts::one);
      } else {
        assume(f, facts);
      }
      record_calls(module, f.body, facts, seen);
    }
    for (const std::string& name : fixed) seen.erase(name);
    std::set<std::string> still_top;
    for (const std::string& name : top)
      if (!seen.contains(name)) still_top.insert(name);
    if (seen == entry_ && still_top == top) return;
    entry_ = std::move(seen);
    top = std::move(still_top);
  }
  entry_.clear();  // no fixpoint: only the empty set of facts is known to be sound
}

void EntryFacts::assume(const Function& f, LengthFacts& facts) const {
  auto found = entry_.find(f.name);
  if (found == entry_.end() || found->second.size() != 2 * f.params.size() + 1) return;
  const Partition& classes = found->second;
  for (std::size_t k = 0; k < classes.size(); ++k)
    if (classes[k] != k)
      facts.unite(partition_node(f.params, k), partition_node(f.params, classes[k]));
}

void EntryFacts::record_calls(const Module& module, const Block& block, LengthFacts& facts,
                              std::unordered_map<std::string, Partition>& seen) const {
  for (const Stmt& s : block.stmts) {
    if (s.kind == StmtKind::Call) {
      const Function* callee = module.find(s.callee);
      if (callee && callee->lifted && callee->params.size() == s.args.size()) {
        // This call's classes, as the caller's facts know them here.
        std::vector<Node> roots(2 * s.args.size() + 1);
        for (std::size_t k = 0; k < roots.size(); ++k)
          roots[k] = facts.find(partition_node(s.args, k));
        Partition here = canonical(roots);
        auto [it, first_call] = seen.try_emplace(s.callee, here);
        if (!first_call) {  // what holds at every call: the classes of both, intersected
          std::vector<std::pair<std::uint32_t, std::uint32_t>> both(here.size());
          for (std::size_t k = 0; k < here.size(); ++k) both[k] = {it->second[k], here[k]};
          it->second = canonical(both);
        }
      }
    }
    for (const Block& b : s.branches) {
      const std::size_t mark = facts.mark();
      record_calls(module, b, facts, seen);
      facts.rollback(mark);
    }
    facts.learn(s);
  }
}

}  // namespace fopt
