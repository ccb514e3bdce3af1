#include "fopt/lower.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "vcode/parser.hpp"
#include "vcode/printer.hpp"

namespace fopt {

namespace {

using vcode::Instruction;
using vcode::Op;

// Where each variable is used last inside one block (uses inside an IF's branches count at the
// IF), and what the block must leave: liveness without per-statement sets.
struct Scope {
  const Scope* parent = nullptr;
  long parent_index = 0;  // the IF statement in the parent block
  std::unordered_map<VarId, long> last_use;
  std::unordered_set<VarId> yields;

  bool live_after(VarId v, long index) const {
    for (const Scope* s = this; s; index = s->parent_index, s = s->parent) {
      auto it = s->last_use.find(v);
      if (it != s->last_use.end() && it->second > index) return true;
      if (s->yields.contains(v)) return true;
    }
    return false;
  }
};

void collect_uses(const Block& block, const std::function<void(VarId)>& use) {
  for (const Stmt& s : block.stmts) {
    for (VarId v : s.args) use(v);
    for (const Block& b : s.branches) collect_uses(b, use);
  }
  for (VarId v : block.yields) use(v);
}

Scope make_scope(const Block& block, const Scope* parent, long parent_index) {
  Scope scope;
  scope.parent = parent;
  scope.parent_index = parent_index;
  for (long i = 0; i < static_cast<long>(block.stmts.size()); ++i) {
    const Stmt& s = block.stmts[i];
    for (VarId v : s.args) scope.last_use[v] = i;
    for (const Block& b : s.branches) collect_uses(b, [&](VarId v) { scope.last_use[v] = i; });
  }
  scope.yields.insert(block.yields.begin(), block.yields.end());
  return scope;
}

class FunctionLowerer {
 public:
  FunctionLowerer(const Module& module, vcode::Program& out, std::uint32_t function_index)
      : module_(module), out_(out), function_(function_index) {}

  void lower(const Function& f) {
    stack_ = f.params;
    Scope scope = make_scope(f.body, nullptr, 0);
    drop_dead(scope, -1);
    block(f.body, scope);
    if (!f.body.diverges) arrange(f.body.yields);
    emit(Op::Ret);
  }

 private:
  void emit(Op op, std::int32_t count = 0, std::int32_t depth = 0) {
    Instruction ins;
    ins.op = op;
    ins.count = count;
    ins.depth = depth;
    ins.function = function_;
    out_.code.push_back(std::move(ins));
  }

  long position(VarId v, std::size_t below) const {
    for (long p = static_cast<long>(below) - 1; p >= 0; --p)
      if (stack_[p] == v) return p;
    throw std::logic_error("variable v" + std::to_string(v) + " is not on the stack");
  }

  // Removes stack entries not live after statement `index`, in grouped POPs.
  void drop_dead(const Scope& scope, long index) {
    std::vector<bool> dead(stack_.size());
    for (std::size_t p = 0; p < stack_.size(); ++p) dead[p] = !scope.live_after(stack_[p], index);
    pop_marked(dead);
  }

  void pop_marked(std::vector<bool> dead) {
    for (long p = static_cast<long>(stack_.size()) - 1; p >= 0;) {
      if (!dead[p]) {
        --p;
        continue;
      }
      long q = p;
      while (q > 0 && dead[q - 1]) --q;
      const long n = p - q + 1;
      const long depth = static_cast<long>(stack_.size()) - 1 - p;
      emit(Op::Pop, n, depth);
      stack_.erase(stack_.begin() + q, stack_.begin() + p + 1);
      dead.erase(dead.begin() + q, dead.begin() + p + 1);
      p = q - 1;
    }
  }

  // Brings `args` to the top of the stack in order (last on top): entries that stay live are
  // copied, the others moved; runs of neighbours with the same fate move in one instruction.
  void bring(const std::vector<VarId>& args, const std::vector<bool>& keep) {
    const std::size_t k = args.size();
    // A prefix of the operands already on top, in order, that all die here needs no move.
    std::size_t in_place = 0;
    for (std::size_t m = std::min(k, stack_.size()); m > 0; --m) {
      bool ok = true;
      for (std::size_t a = 0; a < m && ok; ++a)
        ok = !keep[a] && stack_[stack_.size() - m + a] == args[a];
      if (ok) {
        in_place = m;
        break;
      }
    }
    std::size_t placed = in_place;
    for (std::size_t a = in_place; a < k;) {
      const std::size_t region = stack_.size() - placed;  // where the operands come from
      const long p = position(args[a], region);
      std::size_t run = 1;
      while (a + run < k && keep[a + run] == keep[a] &&
             static_cast<std::size_t>(p) + run < region && stack_[p + run] == args[a + run] &&
             std::find(args.begin() + a, args.begin() + a + run, args[a + run]) ==
                 args.begin() + a + run)
        ++run;
      const long depth = static_cast<long>(stack_.size()) - p - static_cast<long>(run);
      std::vector<VarId> moved(stack_.begin() + p, stack_.begin() + p + run);
      if (keep[a]) {
        emit(Op::Copy, run, depth);
      } else {
        if (depth != 0) emit(Op::CPop, run, depth);
        stack_.erase(stack_.begin() + p, stack_.begin() + p + run);
      }
      stack_.insert(stack_.end(), moved.begin(), moved.end());
      placed += run;
      a += run;
    }
  }

  // Makes the stack exactly `target` (bottom first): drops what is not wanted, keeps the
  // longest bottom part already in place, brings the rest up in order.
  void arrange(const std::vector<VarId>& target) {
    std::vector<bool> unwanted(stack_.size());
    for (std::size_t p = 0; p < stack_.size(); ++p)
      unwanted[p] = std::find(target.begin(), target.end(), stack_[p]) == target.end();
    pop_marked(unwanted);
    std::size_t fixed = 0;
    while (fixed < target.size() && fixed < stack_.size() && stack_[fixed] == target[fixed])
      ++fixed;
    if (fixed == stack_.size() && fixed == target.size()) return;
    std::vector<VarId> rest(target.begin() + fixed, target.end());
    std::vector<bool> keep(rest.size());
    for (std::size_t a = 0; a < rest.size(); ++a) {
      const bool repeated = std::find(rest.begin() + a + 1, rest.end(), rest[a]) != rest.end();
      const bool in_fixed =
          std::find(target.begin(), target.begin() + fixed, rest[a]) != target.begin() + fixed;
      keep[a] = repeated || in_fixed;
    }
    // Every entry above the fixed part is wanted later in `target`, and its last occurrence
    // there moves it (CPOP), so nothing is left between the fixed part and the moved values.
    bring(rest, keep);
    if (stack_ != target) throw std::logic_error("could not arrange the stack");
  }

  void block(const Block& b, const Scope& scope) {
    for (long i = 0; i < static_cast<long>(b.stmts.size()); ++i) statement(b.stmts[i], scope, i);
  }

  std::vector<bool> fates(const std::vector<VarId>& args, const Scope& scope, long index) const {
    std::vector<bool> keep(args.size());
    for (std::size_t a = 0; a < args.size(); ++a)
      keep[a] = scope.live_after(args[a], index) ||
                std::find(args.begin() + a + 1, args.end(), args[a]) != args.end();
    return keep;
  }

  void statement(const Stmt& s, const Scope& scope, long index) {
    std::vector<bool> keep = fates(s.args, scope, index);
    if (s.kind == StmtKind::If) {  // a condition the branches read again stays for them
      std::unordered_set<VarId> inside;
      for (const Block& b : s.branches) collect_uses(b, [&](VarId v) { inside.insert(v); });
      for (std::size_t a = 0; a < s.args.size(); ++a)
        keep[a] = keep[a] || inside.contains(s.args[a]);
    }
    bring(s.args, keep);
    stack_.resize(stack_.size() - s.args.size());
    switch (s.kind) {
      case StmtKind::Op: {
        emit(s.op);
        Instruction& ins = out_.code.back();
        ins.type = s.type;
        ins.where = s.where;
        if (s.op == Op::Const) {
          ins.constant = static_cast<std::uint32_t>(out_.constants.size());
          out_.constants.push_back(s.constant);
        }
        break;
      }
      case StmtKind::Call:
        emit(Op::Call);
        out_.code.back().callee = s.callee;
        break;
      case StmtKind::Fused:
        emit(Op::Fused);
        out_.code.back().count = static_cast<std::int32_t>(s.superop);
        break;
      case StmtKind::If:
        conditional(s, scope, index);
        return;
    }
    stack_.insert(stack_.end(), s.results.begin(), s.results.end());
    std::vector<bool> dead(stack_.size());
    for (std::size_t r = 0; r < s.results.size(); ++r)
      dead[stack_.size() - s.results.size() + r] = !scope.live_after(s.results[r], index);
    pop_marked(dead);
  }

  void conditional(const Stmt& s, const Scope& scope, long index) {
    emit(Op::If);
    std::vector<VarId> kept;
    for (VarId v : stack_)
      if (scope.live_after(v, index)) kept.push_back(v);
    const std::vector<VarId> before = stack_;
    for (int b = 0; b < 2; ++b) {
      if (b == 1) emit(Op::Else);
      stack_ = before;
      const Block& branch = s.branches[b];
      Scope inner = make_scope(branch, &scope, index);
      drop_dead(inner, -1);
      block(branch, inner);
      if (branch.diverges) continue;
      std::vector<VarId> target = kept;
      target.insert(target.end(), branch.yields.begin(), branch.yields.end());
      arrange(target);
    }
    emit(Op::EndIf);
    stack_ = kept;
    stack_.insert(stack_.end(), s.results.begin(), s.results.end());
    std::vector<bool> dead(stack_.size());
    for (std::size_t r = 0; r < s.results.size(); ++r)
      dead[stack_.size() - s.results.size() + r] = !scope.live_after(s.results[r], index);
    pop_marked(dead);
  }

  const Module& module_;
  vcode::Program& out_;
  std::uint32_t function_;
  std::vector<VarId> stack_;
};

}  // namespace

vcode::Program lower(const Module& module) {
  vcode::Program out;
  out.file = module.original.file;
  out.superops = module.superops;
  for (const Function& f : module.functions) {
    const auto index = static_cast<std::uint32_t>(out.functions.size());
    vcode::Function header;
    header.name = f.name;
    header.first = static_cast<std::uint32_t>(out.code.size());
    if (f.lifted) {
      try {
        FunctionLowerer(module, out, index).lower(f);
      } catch (const std::exception& error) {
        throw std::logic_error("lower: function " + f.name + ": " + error.what());
      }
    } else {
      for (std::uint32_t i = f.original_first; i < f.original_end; ++i) {
        Instruction ins = module.original.code[i];
        ins.function = index;
        if (ins.op == Op::Const) {
          ins.constant = static_cast<std::uint32_t>(out.constants.size());
          out.constants.push_back(module.original.constants.at(module.original.code[i].constant));
        }
        out.code.push_back(std::move(ins));
      }
    }
    header.end = static_cast<std::uint32_t>(out.code.size());
    out.functions.push_back(std::move(header));
  }
  // Printing and reading back links calls and IF/ELSE targets exactly as vinterp does, and
  // checks that what we produced is well-formed FCODE.
  const std::string text = vcode::print_program(out);
  try {
    return vcode::parse_program(text, out.file);
  } catch (const std::exception& error) {
    throw std::logic_error(std::string("lower: the generated code does not read back:\n") +
                           error.what());
  }
}

}  // namespace fopt
