// Common values: an operation that repeats an earlier one on the same inputs (the same constant
// spread twice, a sequence's lengths or sum taken twice) reads the earlier result instead. The
// earlier statement is in the same block or an enclosing one, so it always ran first.
// Elementwise operations are left as they are: the cpu backend computes a chain of them where
// its result is read, in one pass with its readers, and a result read twice would be stored
// instead (black-scholes ran 1-3% slower with them shared).
#include <map>
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
// else (no drawing, no I/O, no timer, no call), and its result is worth keeping for a second
// reader. An operation that can fail fails at its first run.
bool shareable(const Statement& s) {
  if (s.kind == Statement::Kind::Const) return true;
  if (s.kind != Statement::Kind::Op) return false;
  switch (vcode::info(s.op).family) {
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

class Sharer {
 public:
  explicit Sharer(std::size_t values) : replacement_(values) {
    for (std::size_t v = 0; v < values; ++v) replacement_[v] = static_cast<Value>(v);
  }

  // Known values are the block's and its enclosing blocks': an arm starts from a copy, and what
  // it learns stays in it.
  void block(Block& statements, std::map<std::string, std::vector<Value>> known) {
    Block kept;
    kept.reserve(statements.size());
    for (Statement& s : statements) {
      for (Value& v : s.inputs) v = replacement_[v];
      if (s.kind == Statement::Kind::If) {
        block(s.then_block, known);
        block(s.else_block, known);
        for (Value& v : s.then_results) v = replacement_[v];
        for (Value& v : s.else_results) v = replacement_[v];
      } else if (shareable(s)) {
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
    sharer.block(f.body, {});
    for (Value& v : f.results) v = sharer[v];
  }
  return program;
}

}  // namespace nesl
