#include "nesl/lower.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

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

// Whether a statement only computes its outputs: it prints, draws and fails nothing, so when
// nothing reads them it can go.
bool pure(const Statement& s) {
  return s.kind == Statement::Kind::Const || (s.kind == Statement::Kind::Op && s.text == "LENGTHS");
}

// Drops the pure statements of `block` (its arms' too) whose outputs nothing after them reads;
// `live` holds what is read later and gains what the kept statements read (values are assigned
// once, so one set serves every arm).
void drop_dead(Block& block, Live& live) {
  for (std::size_t i = block.size(); i-- > 0;) {
    Statement& s = block[i];
    bool read = false;
    for (Value v : s.outputs) read = read || live.count(v);
    if (!read && pure(s)) {
      block.erase(block.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (s.kind == Statement::Kind::If) {
      live.insert(s.then_results.begin(), s.then_results.end());
      live.insert(s.else_results.begin(), s.else_results.end());
      drop_dead(s.then_block, live);
      drop_dead(s.else_block, live);
    }
    live.insert(s.inputs.begin(), s.inputs.end());
  }
}

class Lowerer {
 public:
  Lowerer(std::string& out, std::vector<Location>& lines) : out_(out), lines_(lines) {}

  // The body of a function: its instructions up to and including RET.
  void function_body(const flat::Function& original) {
    flat::Function f = original;
    Live live(f.leaves.size(), f.results);
    drop_dead(f.body, live);
    stack_ = f.parameters;
    Live needed(f.leaves.size(), f.results);
    for (const Statement& s : f.body) add_uses(s, needed);
    drop_unneeded(needed);
    block(f.body, Live(f.leaves.size(), f.results));
    bring_to_top(f.results, Live(f.leaves.size()));
    if (stack_.size() > f.results.size()) {
      line("POP " + std::to_string(stack_.size() - f.results.size()) + " " +
           std::to_string(f.results.size()));
    }
    line("RET");
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
        line("POP 1 " + std::to_string(stack_.size() - 1 - i));
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
        line("COPY 1 " + std::to_string(d));
      } else {
        if (d != 0) line("CPOP 1 " + std::to_string(d));
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
        line("POP 1 " + std::to_string(depth(v)));
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
      case Statement::Kind::Const:
        line("CONST " + s.text);
        define(s.outputs, live_after);
        return;
      case Statement::Kind::Op:
      case Statement::Kind::Call:
        bring_to_top(s.inputs, live_after);
        line(s.kind == Statement::Kind::Call ? "CALL " + s.text : s.text);
        consume(s.inputs.size());
        define(s.outputs, live_after);
        return;
      case Statement::Kind::Exit: line("EXIT"); return;
      case Statement::Kind::If: {
        Live after_arms = live_after;
        for (const Block* arm : {&s.then_block, &s.else_block}) {
          for (const Statement& inner : *arm) add_uses(inner, after_arms);
        }
        after_arms.insert(s.then_results.begin(), s.then_results.end());
        after_arms.insert(s.else_results.begin(), s.else_results.end());
        bring_to_top(s.inputs, after_arms);
        line("IF");
        consume(1);
        std::vector<Value> before = stack_;
        arm(s.then_block, s.then_results, live_after);
        std::vector<Value> then_stack = stack_;
        stack_ = before;
        where_ = s.where;
        line("ELSE");
        arm(s.else_block, s.else_results, live_after);
        where_ = s.where;
        line("ENDIF");
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
        line("POP 1 " + std::to_string(stack_.size() - 1 - i));
        stack_.erase(stack_.begin() + i);
      }
    }
  }

  // One instruction, at the place of the statement being lowered; a CHAR constant may hold
  // line breaks, and each text line gets the place.
  void line(const std::string& text) {
    out_ += text;
    out_ += '\n';
    const auto breaks = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    lines_.insert(lines_.end(), 1 + breaks, where_);
  }

  std::string& out_;
  std::vector<Location>& lines_;
  Location where_;
  std::vector<Value> stack_;
};

}  // namespace

namespace {

struct LoweredFunction {
  std::string name;
  std::string body;
  std::vector<Location> lines;  // where each line of the body came from
};

// Replaces each function whose body is the same as an earlier one's by that one: instances
// that differ only in types the code never looks at (a lifted and an unlifted scalar
// function, say) are emitted once. Repeats until no calls change, since redirecting calls can
// make more bodies equal. The entry function stays first.
void share_identical_bodies(std::vector<LoweredFunction>& functions) {
  while (true) {
    std::map<std::string, std::string> first_with_body;
    std::map<std::string, std::string> replaced_by;
    std::vector<LoweredFunction> kept;
    for (LoweredFunction& f : functions) {
      auto [found, inserted] = first_with_body.emplace(f.body, f.name);
      if (inserted) {
        kept.push_back(std::move(f));
      } else {
        replaced_by[f.name] = found->second;
      }
    }
    functions = std::move(kept);
    if (replaced_by.empty()) break;
    for (LoweredFunction& f : functions) {
      std::istringstream in(f.body);
      std::string rewritten;
      for (std::string line; std::getline(in, line);) {
        if (line.rfind("CALL ", 0) == 0) {
          auto target = replaced_by.find(line.substr(5));
          if (target != replaced_by.end()) line = "CALL " + target->second;
        }
        rewritten += line;
        rewritten += '\n';
      }
      f.body = std::move(rewritten);
    }
  }
}

}  // namespace

std::string lower(const flat::Program& program, std::vector<Location>* line_locations) {
  std::vector<LoweredFunction> functions;
  for (const flat::Function& f : program.functions) {
    LoweredFunction lowered{f.name, {}, {}};
    Lowerer lowerer(lowered.body, lowered.lines);
    lowerer.function_body(f);
    functions.push_back(std::move(lowered));
  }
  share_identical_bodies(functions);
  std::string text;
  for (const LoweredFunction& f : functions) {
    text += "FUNC ";
    text += f.name;
    text += '\n';
    text += f.body;
    text += '\n';
    if (!line_locations) continue;
    line_locations->emplace_back();  // FUNC
    line_locations->insert(line_locations->end(), f.lines.begin(), f.lines.end());
    line_locations->emplace_back();  // the blank line
  }
  return text;
}

}  // namespace nesl
