#include "fopt/stack_effect.hpp"

#include <algorithm>

#include "fopt/op_facts.hpp"

namespace fopt {

using vcode::Op;

bool path_effect(const vcode::Program& program, const std::vector<CodeNode>& nodes,
                 const std::map<std::string, StackEffect>& callees, PathEffect& e,
                 std::string& why) {
  auto access = [&](int depth) { e.need = std::max(e.need, depth - e.height); };
  for (const CodeNode& node : nodes) {
    if (e.diverges || e.depends_on_unknown) return true;  // the rest is unreachable
    const vcode::Instruction& ins = program.code[node.instruction];
    switch (ins.op) {
      case Op::Copy:
        access(ins.count + ins.depth);
        e.height += ins.count;
        break;
      case Op::Pop:
        access(ins.count + ins.depth);
        e.height -= ins.count;
        break;
      case Op::CPop:
        access(ins.count + ins.depth);
        break;
      case Op::Const:
        e.height += 1;
        break;
      case Op::Exit:
        e.diverges = true;
        break;
      case Op::Call: {
        auto it = callees.find(ins.callee);
        if (it == callees.end() || !it->second.known) {
          e.depends_on_unknown = true;
          break;
        }
        if (it->second.diverges) {
          access(it->second.consumed);
          e.diverges = true;
          break;
        }
        access(it->second.consumed);
        e.height += it->second.produced - it->second.consumed;
        break;
      }
      case Op::If: {
        access(1);
        e.height -= 1;
        PathEffect parts[2];
        for (int p = 0; p < 2; ++p) {
          parts[p].height = e.height;
          parts[p].need = e.need;
          if (!path_effect(program, p == 0 ? node.then_part : node.else_part, callees, parts[p],
                           why))
            return false;
        }
        e.need = std::max(parts[0].need, parts[1].need);
        const bool open0 = !parts[0].diverges && !parts[0].depends_on_unknown;
        const bool open1 = !parts[1].diverges && !parts[1].depends_on_unknown;
        if (open0 && open1) {
          if (parts[0].height != parts[1].height) {
            why = "IF at line " + std::to_string(ins.where.line) +
                  ": the branches leave different stack heights";
            return false;
          }
          e.height = parts[0].height;
        } else if (open0) {
          e.height = parts[0].height;
        } else if (open1) {
          e.height = parts[1].height;
        } else {
          e.diverges = parts[0].diverges && parts[1].diverges;
          e.depends_on_unknown = !e.diverges;
        }
        break;
      }
      case Op::Fused: {  // FCODE input: the superoperator's operands, one result
        if (static_cast<std::size_t>(ins.count) >= program.superops.size()) {
          why = "FUSED " + std::to_string(ins.count) + " has no definition";
          return false;
        }
        const int operands = static_cast<int>(program.superops[ins.count].operands.size());
        access(operands);
        e.height += 1 - operands;
        break;
      }
      default:
        access(fixed_arg_count(ins.op));
        e.height += fixed_result_count(ins.op) - fixed_arg_count(ins.op);
        break;
    }
  }
  return true;
}

std::map<std::string, StackEffect> infer_stack_effects(const vcode::Program& program) {
  std::map<std::string, std::uint32_t> last;
  for (std::uint32_t f = 0; f < program.functions.size(); ++f) last[program.functions[f].name] = f;
  std::map<std::string, std::vector<CodeNode>> trees;
  std::map<std::string, StackEffect> effects;
  for (const auto& [name, f] : last) {
    try {
      trees[name] = code_tree(program, program.functions[f]);
    } catch (const std::exception& error) {
      effects[name].why = error.what();
    }
  }
  // Effects only grow from "unknown" to known; iterate until nothing changes.
  for (std::size_t round = 0; round <= last.size() + 1; ++round) {
    bool changed = false;
    for (const auto& [name, tree] : trees) {
      StackEffect& effect = effects[name];
      PathEffect path;
      std::string why;
      if (!path_effect(program, tree, effects, path, why)) {
        if (effect.why != why) effect.why = why, effect.known = false, changed = true;
        continue;
      }
      if (path.depends_on_unknown) continue;
      StackEffect next;
      next.known = true;
      next.consumed = path.need;
      next.produced = path.diverges ? 0 : path.height + path.need;
      next.diverges = path.diverges;
      if (!effect.known || effect.consumed != next.consumed || effect.produced != next.produced ||
          effect.diverges != next.diverges) {
        effect = next;
        changed = true;
      }
    }
    if (!changed) break;
  }
  // A fixpoint not reached within the bound leaves effects that contradict their bodies.
  for (bool again = true; again;) {
    again = false;
    for (const auto& [name, tree] : trees) {
      StackEffect& effect = effects[name];
      if (!effect.known) continue;
      PathEffect path;
      std::string why;
      const bool ok = path_effect(program, tree, effects, path, why);
      if (!ok || path.depends_on_unknown || path.diverges != effect.diverges ||
          path.need != effect.consumed ||
          (!path.diverges && path.height + path.need != effect.produced)) {
        effect.known = false;
        effect.why = ok ? "its stack effect has no fixpoint" : why;
        again = true;
      }
    }
  }
  for (auto& [name, effect] : effects)
    if (!effect.known && effect.why.empty())
      effect.why = "its stack effect depends on calls that never return";
  return effects;
}

}  // namespace fopt
