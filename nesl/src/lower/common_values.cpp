// Common values: an operation that repeats an earlier one on the same inputs (the same constant
// spread twice, sqrt(t) written twice in a source) reads the earlier result instead, and a check
// of a condition an earlier check already passed is dropped. The earlier statement is in the same
// block or an enclosing one, so it always ran first.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "nesl/flat_opt.hpp"
#include "vcode/printer.hpp"

namespace nesl {
namespace {

using flat::Block;
using flat::Statement;
using flat::Value;

// Whether running the statement again on the same inputs gives the same outputs and does nothing
// else: no drawing, no I/O, no timer, no call. An operation that can fail fails at its first run.
bool repeatable(const Statement& s) {
  if (s.kind == Statement::Kind::Const) return true;
  if (s.kind != Statement::Kind::Op) return false;
  switch (vcode::info(s.op).family) {
    case vcode::Family::Elementwise:
    case vcode::Family::Scan:
    case vcode::Family::Reduce:
    case vcode::Family::Permute:
    case vcode::Family::Vector:
    case vcode::Family::Rank:
    case vcode::Family::Pack:
    case vcode::Family::Segdes: return true;
    default: return false;
  }
}

std::string key_of(const Statement& s) {
  if (s.kind == Statement::Kind::Const) return "const " + vcode::constant_text(s.constant);
  std::string key(vcode::spelling(s.op));
  if (s.type) key += " " + std::to_string(static_cast<int>(*s.type));
  for (Value v : s.inputs) key += " " + std::to_string(v);
  return key;
}

// A runtime check as flatten writes it: IF the condition THEN a call that stops the program.
bool is_check(const Statement& s) {
  return s.kind == Statement::Kind::If && s.outputs.empty() && s.else_block.empty() &&
         s.then_block.size() == 1 && s.then_block[0].kind == Statement::Kind::Call &&
         s.then_block[0].outputs.empty() && s.then_block[0].callee.rfind("RUNTIME_ERROR_", 0) == 0;
}

class Sharer {
 public:
  explicit Sharer(std::size_t values) : replacement_(values) {
    for (std::size_t v = 0; v < values; ++v) replacement_[v] = static_cast<Value>(v);
  }

  // Known values and passed checks are the block's and its enclosing blocks': an arm starts from
  // a copy, and what it learns stays in it.
  void block(Block& statements, std::map<std::string, std::vector<Value>> known, std::set<Value> passed) {
    Block kept;
    kept.reserve(statements.size());
    for (Statement& s : statements) {
      for (Value& v : s.inputs) v = replacement_[v];
      if (is_check(s)) {
        if (!passed.insert(s.inputs[0]).second) continue;
      } else if (s.kind == Statement::Kind::If) {
        block(s.then_block, known, passed);
        block(s.else_block, known, passed);
        for (Value& v : s.then_results) v = replacement_[v];
        for (Value& v : s.else_results) v = replacement_[v];
      } else if (repeatable(s)) {
        const auto [found, fresh] = known.emplace(key_of(s), s.outputs);
        if (!fresh) {
          for (std::size_t i = 0; i < s.outputs.size(); ++i) replacement_[s.outputs[i]] = found->second[i];
          continue;
        }
      }
      kept.push_back(std::move(s));
    }
    statements = std::move(kept);
  }

  Value operator[](Value v) const { return replacement_[v]; }

 private:
  std::vector<Value> replacement_;
};

}  // namespace

flat::Program share_common_values(flat::Program program) {
  for (flat::Function& f : program.functions) {
    Sharer sharer(f.leaves.size());
    sharer.block(f.body, {}, {});
    for (Value& v : f.results) v = sharer[v];
  }
  return program;
}

}  // namespace nesl
