#include "fopt/lift.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "fopt/code_tree.hpp"
#include "fopt/op_facts.hpp"
#include "fopt/stack_effect.hpp"
#include "fopt/var_types.hpp"

namespace fopt {

namespace {

using vcode::Op;

struct NotLiftable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class FunctionLifter {
 public:
  FunctionLifter(Module& module, const std::map<std::string, StackEffect>& effects)
      : module_(module), program_(module.original), effects_(effects) {}

  Function lift(const vcode::Function& f, const StackEffect& effect) {
    Function out;
    out.name = f.name;
    std::vector<VarId> stack;
    for (int i = 0; i < effect.consumed; ++i) stack.push_back(module_.new_var());
    out.params = stack;
    lift_nodes(code_tree(program_, f), stack, out.body);
    if (!out.body.diverges) {
      if (static_cast<int>(stack.size()) != effect.produced)
        throw NotLiftable("returns " + std::to_string(stack.size()) + " values, expected " +
                          std::to_string(effect.produced));
      out.body.yields = stack;
    }
    return out;
  }

 private:
  static void need(const std::vector<VarId>& stack, int entries, const vcode::Instruction& ins) {
    if (entries < 0 || static_cast<int>(stack.size()) < entries)
      throw NotLiftable("stack underflow at line " + std::to_string(ins.where.line));
  }

  std::vector<VarId> pop(std::vector<VarId>& stack, int n, const vcode::Instruction& ins) {
    need(stack, n, ins);
    std::vector<VarId> top(stack.end() - n, stack.end());
    stack.resize(stack.size() - n);
    return top;
  }

  void lift_nodes(const std::vector<CodeNode>& nodes, std::vector<VarId>& stack, Block& block) {
    for (const CodeNode& node : nodes) {
      if (block.diverges) return;
      const vcode::Instruction& ins = program_.code[node.instruction];
      Stmt stmt;
      stmt.where = ins.where;
      stmt.op = ins.op;
      stmt.type = ins.type;
      switch (ins.op) {
        case Op::Copy: {
          need(stack, ins.count + ins.depth, ins);
          auto from = stack.end() - ins.depth - ins.count;
          std::vector<VarId> copied(from, from + ins.count);
          stack.insert(stack.end(), copied.begin(), copied.end());
          continue;
        }
        case Op::Pop: {
          need(stack, ins.count + ins.depth, ins);
          auto from = stack.end() - ins.depth - ins.count;
          stack.erase(from, from + ins.count);
          continue;
        }
        case Op::CPop: {
          need(stack, ins.count + ins.depth, ins);
          auto from = stack.end() - ins.depth - ins.count;
          std::vector<VarId> moved(from, from + ins.count);
          stack.erase(from, from + ins.count);
          stack.insert(stack.end(), moved.begin(), moved.end());
          continue;
        }
        case Op::Const:
          stmt.constant = program_.constants.at(ins.constant);
          stmt.results.push_back(module_.new_var(var_type_of(*ins.type)));
          break;
        case Op::Exit:
          block.stmts.push_back(std::move(stmt));
          block.diverges = true;
          return;
        case Op::Call: {
          auto it = effects_.find(ins.callee);
          if (it == effects_.end() || !it->second.known)
            throw NotLiftable("calls " + ins.callee + ", whose stack effect is unknown");
          stmt.kind = StmtKind::Call;
          stmt.callee = ins.callee;
          stmt.type.reset();
          stmt.args = pop(stack, it->second.consumed, ins);
          if (it->second.diverges) {
            block.stmts.push_back(std::move(stmt));
            block.diverges = true;
            return;
          }
          for (int i = 0; i < it->second.produced; ++i) stmt.results.push_back(module_.new_var());
          break;
        }
        case Op::If: {
          stmt.kind = StmtKind::If;
          stmt.args = pop(stack, 1, ins);
          const VarId watermark = static_cast<VarId>(module_.var_types.size());
          std::vector<VarId> stacks[2] = {stack, stack};
          stmt.branches.resize(2);
          lift_nodes(node.then_part, stacks[0], stmt.branches[0]);
          lift_nodes(node.else_part, stacks[1], stmt.branches[1]);
          merge(stmt, stacks, watermark, stack, block);
          block.stmts.push_back(std::move(stmt));
          continue;
        }
        case Op::Ret:
        case Op::Else:
        case Op::EndIf:
        case Op::Func:
          throw NotLiftable("unexpected " + std::string(vcode::spelling(ins.op)));
        case Op::Fused: {  // FCODE input
          const vcode::SuperOp& op = program_.superops.at(ins.count);
          stmt.kind = StmtKind::Fused;
          stmt.superop = static_cast<std::uint32_t>(ins.count);
          stmt.type.reset();
          stmt.args = pop(stack, static_cast<int>(op.operands.size()), ins);
          stmt.results.push_back(module_.new_var(var_type_of(op.result_type())));
          break;
        }
        default: {
          stmt.args = pop(stack, fixed_arg_count(ins.op), ins);
          for (int i = 0; i < fixed_result_count(ins.op); ++i)
            stmt.results.push_back(module_.new_var(result_type(stmt, i)));
          break;
        }
      }
      stack.insert(stack.end(), stmt.results.begin(), stmt.results.end());
      block.stmts.push_back(std::move(stmt));
    }
  }

  // The stack after an IF: entries both branches left alike (defined before the IF) stay;
  // the others become results of the IF, yielded by each branch that does not diverge.
  void merge(Stmt& stmt, std::vector<VarId> (&stacks)[2], VarId watermark,
             std::vector<VarId>& stack, Block& block) {
    Block* branch = stmt.branches.data();
    if (branch[0].diverges && branch[1].diverges) {
      block.diverges = true;
      return;
    }
    const int open = branch[0].diverges ? 1 : 0;
    const bool both = !branch[0].diverges && !branch[1].diverges;
    if (both && stacks[0].size() != stacks[1].size())
      throw NotLiftable("IF at line " + std::to_string(stmt.where.line) +
                        ": branches leave different stack heights");
    std::vector<VarId> merged;
    for (std::size_t k = 0; k < stacks[open].size(); ++k) {
      VarId v = stacks[open][k];
      if (v < watermark && (!both || stacks[1 - open][k] == v)) {
        merged.push_back(v);
        continue;
      }
      VarId result = module_.new_var();  // typed by infer_var_types, from every branch
      stmt.results.push_back(result);
      for (int b = 0; b < 2; ++b)
        if (!branch[b].diverges) branch[b].yields.push_back(stacks[b][k]);
      merged.push_back(result);
    }
    stack = merged;
  }

  Module& module_;
  const vcode::Program& program_;
  const std::map<std::string, StackEffect>& effects_;
};

void opaque(Function& f, const vcode::Function& source, std::string why) {
  f.lifted = false;
  f.original_first = source.first;
  f.original_end = source.end;
  f.why_unoptimized = std::move(why);
}

}  // namespace

Module lift(const vcode::Program& program) {
  Module module;
  module.original = program;
  module.superops = program.superops;  // FCODE input keeps its superoperators
  const vcode::Function& entry = program.functions.at(program.entry_function);
  module.entry = entry.name;

  std::set<std::string> names;
  bool redefined = false;
  for (const auto& f : program.functions) redefined |= !names.insert(f.name).second;
  if (redefined) {
    // Which definition a call reaches depends on the order; keep every function as it is.
    for (const auto& source : program.functions) {
      Function f;
      f.name = source.name;
      opaque(f, source, "the program defines a function twice");
      module.functions.push_back(std::move(f));
    }
    return module;
  }

  const auto effects = infer_stack_effects(program);
  FunctionLifter lifter(module, effects);
  for (const auto& source : program.functions) {
    const StackEffect& effect = effects.at(source.name);
    Function f;
    f.name = source.name;
    if (!effect.known) {
      opaque(f, source, effect.why);
    } else if (source.name == module.entry && effect.consumed > 0) {
      opaque(f, source, "the entry function reads below the empty stack");
    } else {
      try {
        f = lifter.lift(source, effect);
      } catch (const std::exception& error) {
        f = Function{};
        f.name = source.name;
        opaque(f, source, error.what());
      }
    }
    module.functions.push_back(std::move(f));
  }
  infer_var_types(module);
  return module;
}

}  // namespace fopt
