#include "fopt/length_facts.hpp"

#include "fopt/op_facts.hpp"
#include "vcode/superop_analysis.hpp"

namespace fopt {

using vcode::Op;

LengthFacts::Node LengthFacts::find(Node n) const {
  // No path compression: unions must stay undoable.
  for (auto it = nodes_.find(n); it != nodes_.end() && it->second.parent != n; it = nodes_.find(n))
    n = it->second.parent;
  return n;
}

void LengthFacts::unite(Node a, Node b) {
  a = find(a);
  b = find(b);
  if (a == b) return;
  auto& ea = nodes_.try_emplace(a, Entry{a, 0}).first->second;
  auto& eb = nodes_.try_emplace(b, Entry{b, 0}).first->second;
  if (ea.rank < eb.rank) std::swap(a, b);
  Entry& root = nodes_.at(a);
  Entry& child = nodes_.at(b);
  undo_.push_back({b, a, root.rank});
  child.parent = a;
  if (root.rank == child.rank) ++root.rank;
}

void LengthFacts::rollback(std::size_t mark) {
  while (undo_.size() > mark) {
    const Undo u = undo_.back();
    undo_.pop_back();
    nodes_.at(u.child).parent = u.child;
    nodes_.at(u.root).rank = u.old_rank;
  }
}

namespace {

// A FUSED statement's: its operands obey the superoperator's length rules (vcode/superop.hpp),
// checked when it runs, and its result has the domain's length or one element per segment.
template <class Holds, class Check>
void fused_relations(const Stmt& s, const vcode::SuperOp& op, Holds&& unite, Check&& check) {
  using N = LengthFacts;
  const auto& a = s.args;
  if (op.nodes.empty() || op.operands.size() != a.size() || s.results.size() != 1) return;
  const vcode::SuperOpAnalysis analysis = vcode::analyze(op);
  const VarId source = a[analysis.domain_operand];
  const N::Node domain = analysis.domain_is_total ? N::sum(source) : N::length(source);
  for (std::size_t k = 0; k < a.size(); ++k) {
    const vcode::OperandUse& use = analysis.operands[k];
    if (use.elementwise) check(N::length(a[k]), domain);
    if (use.segdes) check(N::sum(a[k]), domain);
    for (std::uint32_t d : use.per_segment_of) check(N::length(a[k]), N::length(a[d]));
  }
  if (analysis.root_kind == vcode::RootKind::Reduce)
    unite(N::length(s.results[0]), N::length(a[analysis.root_segdes]));
  else
    unite(N::length(s.results[0]), domain);
}

// Calls `holds(x, y)` for each relation `s` guarantees by construction and `check(x, y)` for each
// one its run checks (a mismatch is a run-time error): the one list learn() and checks_hold() read.
template <class Holds, class Check>
void relations(const Stmt& s, const std::vector<vcode::SuperOp>* superops, Holds&& unite,
               Check&& check) {
  if (s.kind == StmtKind::Fused && superops && s.superop < superops->size())
    fused_relations(s, (*superops)[s.superop], unite, check);
  if (s.kind != StmtKind::Op) return;
  const auto& a = s.args;
  const auto& r = s.results;
  using N = LengthFacts;
  auto len = [](VarId v) { return N::length(v); };
  auto sum = [](VarId v) { return N::sum(v); };
  constexpr auto one = N::one;
  switch (vcode::info(s.op).family) {
    case vcode::Family::Elementwise:
      for (VarId v : a) check(len(v), len(a[0]));
      unite(len(r[0]), len(a[0]));
      return;
    case vcode::Family::Random:
      unite(len(r[0]), len(a[0]));
      return;
    case vcode::Family::Scan:
      unite(len(r[0]), len(a[0]));
      check(len(a[0]), sum(a[1]));
      return;
    case vcode::Family::Reduce:
      unite(len(r[0]), len(a[1]));
      check(len(a[0]), sum(a[1]));
      return;
    case vcode::Family::Rank:
      unite(len(r[0]), len(a[0]));
      check(len(a[0]), sum(a[1]));
      return;
    default:
      break;
  }
  switch (s.op) {
    case Op::Const: {
      const auto& c = s.constant;
      const std::size_t n = c.type == vcode::TypeKeyword::Float ? c.floats.size() : c.ints.size();
      if (n == 1 && c.type != vcode::TypeKeyword::Segdes && c.type != vcode::TypeKeyword::Char)
        unite(len(r[0]), one);
      return;
    }
    case Op::Length:
      unite(len(r[0]), one);
      unite(sum(r[0]), len(a[0]));
      return;
    case Op::Lengths:
      unite(len(r[0]), len(a[0]));
      unite(sum(r[0]), sum(a[0]));
      return;
    case Op::MakeSegdes:
      unite(len(r[0]), len(a[0]));
      unite(sum(r[0]), sum(a[0]));
      return;
    case Op::Dist:
      unite(len(r[0]), sum(a[1]));
      check(len(a[0]), len(a[1]));
      return;
    case Op::Index:
      unite(len(r[0]), sum(a[2]));
      check(len(a[0]), len(a[2]));
      check(len(a[1]), len(a[2]));
      return;
    case Op::Pack:
      check(len(a[0]), len(a[1]));
      check(len(a[0]), sum(a[2]));
      unite(len(r[0]), sum(r[1]));
      unite(len(r[1]), len(a[2]));
      return;
    case Op::Extract:
      unite(len(r[0]), len(a[2]));
      check(len(a[1]), len(a[2]));
      check(len(a[0]), sum(a[2]));
      return;
    case Op::BPermute:
      unite(len(r[0]), len(a[1]));
      check(len(a[0]), sum(a[2]));
      check(len(a[1]), sum(a[3]));
      return;
    case Op::DPermute:  // values, indices, defaults, source and destination descriptors
      unite(len(r[0]), len(a[2]));
      check(len(a[1]), len(a[0]));
      check(len(a[0]), sum(a[3]));
      check(len(a[2]), sum(a[4]));
      return;
    case Op::Replace:
      unite(len(r[0]), len(a[0]));
      return;
    case Op::Permute:
      unite(len(r[0]), len(a[0]));
      check(len(a[1]), len(a[0]));
      check(len(a[0]), sum(a[2]));
      return;
    case Op::StopTimer:
      unite(len(r[0]), one);
      return;
    default:
      return;
  }
}

}  // namespace

void LengthFacts::learn(const Stmt& s, bool checked) {
  relations(
      s, superops_, [&](Node x, Node y) { unite(x, y); },
      [&](Node x, Node y) {
        if (checked) unite(x, y);  // known only because the op checked it
      });
}

bool LengthFacts::checks_hold(const Stmt& s) const {
  bool all = true;
  relations(s, superops_, [](Node, Node) {}, [&](Node x, Node y) { all = all && same(x, y); });
  return all;
}

}  // namespace fopt
