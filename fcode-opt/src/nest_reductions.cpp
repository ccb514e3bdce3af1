#include "fopt/nest_reductions.hpp"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "vcode/superop_arg_reduce.hpp"
#include "vcode/superop_check.hpp"

namespace fopt {
namespace {

using vcode::Op;
using vcode::SuperOp;
using vcode::SuperOpNode;
using Kind = SuperOpNode::Kind;

bool is_extreme_reduction(const Stmt& s) {
  return s.kind == StmtKind::Op && (s.op == Op::MaxReduce || s.op == Op::MinReduce) &&
         s.results.size() == 1 && s.args.size() == 2 && s.type;
}

bool is_timer(const Stmt& s) {
  return s.kind == StmtKind::Op && (s.op == Op::StartTimer || s.op == Op::StopTimer);
}

// `op` with operand `m` replaced by (reduction (operand x) (operand s)), m's operand removed.
SuperOp with_nested(const SuperOp& op, std::uint32_t m, Op reduction, vcode::TypeKeyword type,
                    std::uint32_t x, std::uint32_t s) {
  auto renumbered = [&](std::uint32_t k) { return k > m ? k - 1 : k; };
  SuperOp out;
  out.id = op.id;
  out.where = op.where;
  for (std::uint32_t k = 0; k < op.operands.size(); ++k)
    if (k != m) out.operands.push_back(op.operands[k]);
  auto operand_node = [&](std::uint32_t k) {
    SuperOpNode n;
    n.kind = Kind::Operand;
    n.operand = renumbered(k);
    n.result = op.operands[k];
    out.nodes.push_back(n);
    return static_cast<std::uint32_t>(out.nodes.size() - 1);
  };
  std::vector<std::uint32_t> renamed(op.nodes.size());
  for (std::uint32_t i = 0; i < op.nodes.size(); ++i) {
    SuperOpNode n = op.nodes[i];
    if (n.kind == Kind::Operand && n.operand == m) {
      SuperOpNode r;
      r.kind = Kind::Reduce;
      r.op = reduction;
      r.type = r.result = type;
      r.arity = 2;
      r.args[0] = operand_node(x);
      r.args[1] = operand_node(s);
      out.nodes.push_back(r);
    } else {
      if (n.kind == Kind::Operand) n.operand = renumbered(n.operand);
      for (std::uint8_t a = 0; a < n.arity && a < 3; ++a) n.args[a] = renamed[n.args[a]];
      out.nodes.push_back(n);
    }
    renamed[i] = static_cast<std::uint32_t>(out.nodes.size() - 1);
  }
  return out;
}

class Nester {
 public:
  explicit Nester(Module& module) : module_(module) {}

  void run(Function& f, const EntryFacts& entry) {
    uses_.clear();
    safe_.clear();
    count_uses(f.body, uses_);
    LengthFacts facts;
    facts.know_superops(module_.superops);
    entry.assume(f, facts);
    find_safe(f.body, facts);
    rewrite(f.body);
  }

 private:
  // The extreme reductions whose lengths are known to agree where they run: they cannot fail.
  void find_safe(Block& block, LengthFacts& facts) {
    for (Stmt& s : block.stmts) {
      if (is_extreme_reduction(s) && facts.checks_hold(s)) safe_.insert(s.results[0]);
      for (Block& b : s.branches) {
        const std::size_t mark = facts.mark();
        find_safe(b, facts);
        facts.rollback(mark);
      }
      facts.learn(s);
    }
  }

  void rewrite(Block& block) {
    std::unordered_map<VarId, std::size_t> reduction_at;  // its statement's index in `block`
    std::vector<bool> dropped(block.stmts.size(), false);
    std::size_t last_timer = 0;  // statements before it are in another timed stretch
    bool timer_seen = false;
    for (std::size_t i = 0; i < block.stmts.size(); ++i) {
      Stmt& s = block.stmts[i];
      for (Block& b : s.branches) rewrite(b);
      bool timed = is_timer(s);
      for (const Block& b : s.branches)
        for_each_stmt(b, [&](const Stmt& t) { timed = timed || is_timer(t); });
      if (timed) {
        last_timer = i;
        timer_seen = true;
      }
      if (is_extreme_reduction(s) && safe_.contains(s.results[0]) && uses_[s.results[0]] == 1)
        reduction_at[s.results[0]] = i;
      if (s.kind != StmtKind::Fused) continue;
      for (std::uint32_t m = 0; m < s.args.size(); ++m) {
        auto at = reduction_at.find(s.args[m]);
        if (at == reduction_at.end() || (timer_seen && at->second < last_timer)) continue;
        if (nest(s, m, block.stmts[at->second])) {
          dropped[at->second] = true;
          reduction_at.erase(at);
          break;
        }
      }
    }
    std::vector<Stmt> kept;
    kept.reserve(block.stmts.size());
    for (std::size_t i = 0; i < block.stmts.size(); ++i)
      if (!dropped[i]) kept.push_back(std::move(block.stmts[i]));
    block.stmts = std::move(kept);
  }

  // Moves `reduction` (m = extreme x sd) into the FUSED `s` that reads m as its operand `m`,
  // where x and sd are operands of `s` too and the result has the shape of
  // vcode/superop_arg_reduce.hpp.
  bool nest(Stmt& s, std::uint32_t m, const Stmt& reduction) {
    const VarId x = reduction.args[0], sd = reduction.args[1];
    std::optional<std::uint32_t> x_at, sd_at;
    for (std::uint32_t k = 0; k < s.args.size(); ++k) {
      if (s.args[k] == x && !x_at) x_at = k;
      if (s.args[k] == sd && !sd_at) sd_at = k;
    }
    if (!x_at || !sd_at) return false;
    SuperOp op =
        with_nested(module_.superops[s.superop], m, reduction.op, *reduction.type, *x_at, *sd_at);
    if (!vcode::arg_reduce_shape(op)) return false;
    std::vector<vcode::Diagnostic> problems;
    vcode::check_superop(op, {}, problems);
    if (!problems.empty()) return false;
    op.id = static_cast<std::uint32_t>(module_.superops.size());
    module_.superops.push_back(std::move(op));
    s.superop = module_.superops.back().id;
    s.args.erase(s.args.begin() + m);
    return true;
  }

  Module& module_;
  std::unordered_map<VarId, std::size_t> uses_;
  std::unordered_set<VarId> safe_;  // reductions that cannot fail
};

}  // namespace

void nest_reductions(Module& module, const PassOptions&) {
  const EntryFacts entry(module);
  Nester nester(module);
  for (Function& f : module.functions)
    if (f.lifted) nester.run(f, entry);
}

}  // namespace fopt
