#include "nesl/lower.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "vcode/linker.hpp"

namespace nesl {
namespace {

using flat::Block;
using flat::Statement;
using flat::Value;
// The values live at a point of a function: one bit for each of its values. Lowering keeps one
// for each statement, so copies must be cheap.
class Live {
 public:
  explicit Live(std::size_t values) : bits_(values) {}
  Live(std::size_t values, const std::vector<Value>& live) : bits_(values) { insert(live.begin(), live.end()); }
  bool count(Value v) const { return bits_[static_cast<std::size_t>(v)]; }
  void insert(Value v) { bits_[static_cast<std::size_t>(v)] = true; }
  template <typename Iterator>
  void insert(Iterator first, Iterator last) {
    for (; first != last; ++first) insert(*first);
  }

 private:
  std::vector<bool> bits_;
};

// Every value a statement reads, its nested arms included.
void add_uses(const Statement& s, Live& out) {
  out.insert(s.inputs.begin(), s.inputs.end());
  if (s.kind != Statement::Kind::If) return;
  for (const Block* arm : {&s.then_block, &s.else_block}) {
    for (const Statement& inner : *arm) add_uses(inner, out);
  }
  out.insert(s.then_results.begin(), s.then_results.end());
  out.insert(s.else_results.begin(), s.else_results.end());
}

// A function's code as lowered, before it takes its place in the program: jump targets and
// constants are its own (targets count from its first instruction).
struct LoweredFunction {
  std::string name;
  std::vector<vcode::Instruction> code;
  std::vector<vcode::Constant> constants;
  std::vector<Location> origins;  // one for each instruction

  // The same code: what lowering two instances that differ only in types the code never looks
  // at (a lifted and an unlifted scalar function, say) gives.
  bool same_code(const LoweredFunction& other) const {
    const auto same = [](const vcode::Instruction& a, const vcode::Instruction& b) {
      return a.op == b.op && a.type == b.type && a.count == b.count && a.depth == b.depth && a.callee == b.callee &&
             a.target == b.target && a.constant == b.constant;
    };
    return std::equal(code.begin(), code.end(), other.code.begin(), other.code.end(), same) &&
           constants == other.constants;
  }
};

class Lowerer {
 public:
  explicit Lowerer(LoweredFunction& out) : out_(out) {}

  // The body of a function: its instructions up to and including RET.
  void function_body(const flat::Function& f) {
    stack_ = f.parameters;
    Live needed(f.leaves.size(), f.results);
    for (const Statement& s : f.body) add_uses(s, needed);
    drop_unneeded(needed);
    block(f.body, Live(f.leaves.size(), f.results));
    bring_to_top(f.results, Live(f.leaves.size()));
    if (stack_.size() > f.results.size()) {
      stack_move(vcode::Op::Pop, stack_.size() - f.results.size(), f.results.size());
    }
    plain(vcode::Op::Ret);
  }

 private:
  int depth(Value v) const {
    auto it = std::find(stack_.rbegin(), stack_.rend(), v);
    if (it == stack_.rend()) throw std::logic_error("lower: v" + std::to_string(v) + " is not on the stack");
    return static_cast<int>(it - stack_.rbegin());
  }

  // Pops every stack entry that is not needed, from the top down.
  void drop_unneeded(const Live& needed) {
    for (int i = static_cast<int>(stack_.size()) - 1; i >= 0; --i) {
      if (!needed.count(stack_[i])) {
        stack_move(vcode::Op::Pop, 1, stack_.size() - 1 - i);
        stack_.erase(stack_.begin() + i);
      }
    }
  }

  // Pushes the values in order on top; a value's slot is moved (CPOP) when nothing after needs it.
  // A value is looked for under what this call has pushed, so a copy made for an earlier operand
  // is never taken for the original.
  void bring_to_top(const std::vector<Value>& values, const Live& live_after) {
    std::size_t n = values.size();
    bool in_place = stack_.size() >= n;
    for (std::size_t j = 0; j < n && in_place; ++j) {
      bool again = std::find(values.begin() + static_cast<long>(j) + 1, values.end(), values[j]) != values.end();
      in_place = !again && !live_after.count(values[j]) && stack_[stack_.size() - n + j] == values[j];
    }
    if (in_place) return;
    std::size_t pushed = 0;
    for (std::size_t j = 0; j < n; ++j) {
      Value v = values[j];
      bool again = std::find(values.begin() + static_cast<long>(j) + 1, values.end(), v) != values.end();
      long index = static_cast<long>(stack_.size() - pushed) - 1;
      while (index >= 0 && stack_[index] != v) --index;
      if (index < 0) throw std::logic_error("lower: v" + std::to_string(v) + " is not on the stack");
      std::size_t d = stack_.size() - 1 - static_cast<std::size_t>(index);
      if (again || live_after.count(v)) {
        stack_move(vcode::Op::Copy, 1, d);
      } else {
        if (d != 0) stack_move(vcode::Op::CPop, 1, d);
        stack_.erase(stack_.begin() + index);
      }
      stack_.push_back(v);
      ++pushed;
    }
  }

  void consume(std::size_t count) { stack_.resize(stack_.size() - count); }

  void define(const std::vector<Value>& outputs, const Live& live_after) {
    for (Value v : outputs) stack_.push_back(v);
    for (Value v : outputs) {
      if (!live_after.count(v)) {
        stack_move(vcode::Op::Pop, 1, depth(v));
        stack_.erase(stack_.end() - 1 - depth(v));
      }
    }
  }

  void block(const Block& statements, const Live& live_out) {
    std::vector<Live> live_after(statements.size(), live_out);
    Live live = live_out;
    for (std::size_t i = statements.size(); i-- > 0;) {
      live_after[i] = live;
      add_uses(statements[i], live);
    }
    for (std::size_t i = 0; i < statements.size(); ++i) statement(statements[i], live_after[i]);
  }

  void statement(const Statement& s, const Live& live_after) {
    where_ = s.where;
    switch (s.kind) {
      case Statement::Kind::Const: {
        vcode::Instruction& ins = emit(vcode::Op::Const);
        ins.type = s.constant.type;
        ins.constant = static_cast<std::uint32_t>(out_.constants.size());
        out_.constants.push_back(s.constant);
        define(s.outputs, live_after);
        return;
      }
      case Statement::Kind::Op:
        bring_to_top(s.inputs, live_after);
        emit(s.op).type = s.type;
        consume(s.inputs.size());
        define(s.outputs, live_after);
        return;
      case Statement::Kind::Call:
        bring_to_top(s.inputs, live_after);
        emit(vcode::Op::Call).callee = s.callee;
        consume(s.inputs.size());
        define(s.outputs, live_after);
        return;
      case Statement::Kind::If: {
        Live after_arms = live_after;
        for (const Block* arm : {&s.then_block, &s.else_block}) {
          for (const Statement& inner : *arm) add_uses(inner, after_arms);
        }
        after_arms.insert(s.then_results.begin(), s.then_results.end());
        after_arms.insert(s.else_results.begin(), s.else_results.end());
        bring_to_top(s.inputs, after_arms);
        const std::size_t if_at = plain(vcode::Op::If);
        consume(1);
        std::vector<Value> before = stack_;
        arm(s.then_block, s.then_results, live_after);
        std::vector<Value> then_stack = stack_;
        stack_ = before;
        where_ = s.where;
        const std::size_t else_at = plain(vcode::Op::Else);
        out_.code[if_at].target = static_cast<std::uint32_t>(else_at + 1);
        arm(s.else_block, s.else_results, live_after);
        where_ = s.where;
        const std::size_t endif_at = plain(vcode::Op::EndIf);
        out_.code[else_at].target = static_cast<std::uint32_t>(endif_at + 1);
        // Both arms leave the values needed later, in their old order, then the results.
        consume(s.outputs.size());
        if (stack_ != std::vector<Value>(then_stack.begin(), then_stack.end() - static_cast<long>(s.outputs.size()))) {
          throw std::logic_error("lower: the arms of an IF leave different stacks");
        }
        define(s.outputs, live_after);
        return;
      }
    }
  }

  void arm(const Block& statements, const std::vector<Value>& results, const Live& live_after) {
    Live live_out = live_after;
    live_out.insert(results.begin(), results.end());
    block(statements, live_out);
    bring_to_top(results, live_after);
    // Everything under the results that the code after the IF does not need goes.
    std::size_t n = results.size();
    for (int i = static_cast<int>(stack_.size() - n) - 1; i >= 0; --i) {
      if (!live_after.count(stack_[i])) {
        stack_move(vcode::Op::Pop, 1, stack_.size() - 1 - i);
        stack_.erase(stack_.begin() + i);
      }
    }
  }

  // One instruction of the function being lowered, at the place of the statement being lowered.
  vcode::Instruction& emit(vcode::Op op) {
    vcode::Instruction ins;
    ins.op = op;
    out_.code.push_back(ins);
    out_.origins.push_back(where_);
    return out_.code.back();
  }

  // An instruction with no operand; its index.
  std::size_t plain(vcode::Op op) {
    emit(op);
    return out_.code.size() - 1;
  }

  void stack_move(vcode::Op op, std::size_t count, std::size_t depth) {
    vcode::Instruction& ins = emit(op);
    ins.count = static_cast<std::int32_t>(count);
    ins.depth = static_cast<std::int32_t>(depth);
  }

  LoweredFunction& out_;
  Location where_;
  std::vector<Value> stack_;
};

// Replaces each function whose code is the same as an earlier one's by that one, and redirects
// its calls; repeats until no call changes, since redirecting calls can make more functions
// alike. The entry function stays first.
void share_identical_functions(std::vector<LoweredFunction>& functions) {
  while (true) {
    std::unordered_map<std::string, std::string> replaced_by;
    std::vector<LoweredFunction> kept;
    for (LoweredFunction& f : functions) {
      auto same = std::find_if(kept.begin(), kept.end(), [&](const LoweredFunction& k) { return k.same_code(f); });
      if (same == kept.end()) {
        kept.push_back(std::move(f));
      } else {
        replaced_by[f.name] = same->name;
      }
    }
    functions = std::move(kept);
    if (replaced_by.empty()) return;
    for (LoweredFunction& f : functions) {
      for (vcode::Instruction& ins : f.code) {
        if (ins.op != vcode::Op::Call) continue;
        auto target = replaced_by.find(ins.callee);
        if (target != replaced_by.end()) ins.callee = target->second;
      }
    }
  }
}

// The functions one after another: targets and constant numbers made the program's.
vcode::Program assemble(std::vector<LoweredFunction>& functions, std::vector<Location>& origins) {
  vcode::Program program;
  for (LoweredFunction& f : functions) {
    vcode::Function function;
    function.name = f.name;
    function.first = static_cast<std::uint32_t>(program.code.size());
    const auto constants = static_cast<std::uint32_t>(program.constants.size());
    for (vcode::Instruction ins : f.code) {
      ins.function = static_cast<std::uint32_t>(program.functions.size());
      if (ins.op == vcode::Op::If || ins.op == vcode::Op::Else) ins.target += function.first;
      if (ins.op == vcode::Op::Const) ins.constant += constants;
      program.code.push_back(std::move(ins));
    }
    function.end = static_cast<std::uint32_t>(program.code.size());
    program.functions.push_back(function);
    program.constants.insert(program.constants.end(), f.constants.begin(), f.constants.end());
    origins.insert(origins.end(), f.origins.begin(), f.origins.end());
  }
  return program;
}

// Numbers the lines as vcode::print_program writes them (FUNC, one line an instruction, a CHAR
// constant's line breaks its own, a blank line between functions), sets each instruction's
// line, and gives each line its origin.
std::vector<Location> number_lines(vcode::Program& program, const std::vector<Location>& origins) {
  std::vector<Location> lines;
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    vcode::Function& function = program.functions[f];
    if (f) lines.emplace_back();  // the blank line
    lines.emplace_back();  // FUNC
    function.where = {static_cast<int>(lines.size()), 1};
    for (std::uint32_t i = function.first; i < function.end; ++i) {
      vcode::Instruction& ins = program.code[i];
      ins.where = {static_cast<int>(lines.size()) + 1, 1};
      std::size_t breaks = 0;
      if (ins.op == vcode::Op::Const && ins.type == vcode::TypeKeyword::Char) {
        const std::vector<std::int32_t>& codes = program.constants[ins.constant].ints;
        breaks = static_cast<std::size_t>(std::count(codes.begin(), codes.end(), '\n'));
      }
      lines.insert(lines.end(), 1 + breaks, origins[i]);
    }
  }
  return lines;
}

}  // namespace

LoweredProgram lower(const flat::Program& program) {
  std::vector<LoweredFunction> functions;
  for (const flat::Function& f : program.functions) {
    LoweredFunction lowered;
    lowered.name = f.name;
    Lowerer(lowered).function_body(f);
    functions.push_back(std::move(lowered));
  }
  share_identical_functions(functions);
  LoweredProgram lowered;
  std::vector<Location> origins;
  lowered.program = assemble(functions, origins);
  lowered.program.file = "top level";
  lowered.lines = number_lines(lowered.program, origins);
  std::vector<vcode::Diagnostic> errors;
  vcode::link_program(lowered.program, errors);
  if (!errors.empty()) throw std::logic_error("lower: " + errors.front().message);
  return lowered;
}

}  // namespace nesl
