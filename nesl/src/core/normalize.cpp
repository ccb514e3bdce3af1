#include "nesl/normalize.hpp"

#include <string>
#include <utility>
#include <vector>

namespace nesl {
namespace {

class Normalizer {
 public:
  // The expression with its operands named; the bindings it needs are appended to lets.
  using Lets = std::vector<std::pair<core::PatternPtr, core::ExprPtr>>;

  core::ExprPtr whole(const core::ExprPtr& e) {
    std::size_t mark = renames_.size();
    Lets lets;
    core::ExprPtr body = value(e, lets);
    renames_.resize(mark);
    return wrap(lets, body);
  }

  // A copy of the pattern with fresh names, which are in scope from now on. Every variable is
  // bound once, so lifting a let out of another's value cannot capture a name.
  core::PatternPtr rename(const core::PatternPtr& pattern) {
    auto copy = std::make_shared<core::Pattern>(*pattern);
    if (pattern->kind == core::Pattern::Kind::Variable) {
      copy->name = pattern->name + "_" + std::to_string(++count_);
      renames_.emplace_back(pattern->name, copy->name);
      return copy;
    }
    for (core::PatternPtr& child : copy->children) child = rename(child);
    return copy;
  }

  void reset() { renames_.clear(); }

 private:
  std::string renamed(const std::string& name) const {
    for (auto it = renames_.rbegin(); it != renames_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return name;
  }

  static core::ExprPtr wrap(const Lets& lets, core::ExprPtr body) {
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
      auto e = core::make(core::Kind::Let, body->type);
      e->pattern = it->first;
      e->children = {it->second, body};
      body = e;
    }
    return body;
  }

  // An operand: a constant, a variable, or a pair of operands; anything else gets a name.
  core::ExprPtr operand(const core::ExprPtr& e, Lets& lets) {
    if (e->kind == core::Kind::Constant) return e;
    if (e->kind == core::Kind::Variable) {
      auto use = std::make_shared<core::Expr>(*e);
      use->name = renamed(e->name);
      return use;
    }
    if (e->kind == core::Kind::Pair) {
      auto copy = core::make(core::Kind::Pair, e->type);
      core::ExprPtr left = operand(e->children[0], lets);
      copy->children = {left, operand(e->children[1], lets)};
      return copy;
    }
    std::size_t mark = renames_.size();
    core::ExprPtr computed = value(e, lets);
    renames_.resize(mark);
    auto bound = std::make_shared<core::Pattern>();
    bound->name = "n";
    bound->name += std::to_string(++count_);
    bound->name += '_';
    bound->type = e->type;
    lets.emplace_back(bound, computed);
    auto use = core::make(core::Kind::Variable, e->type);
    use->name = bound->name;
    return use;
  }

  // The expression itself in ANF, its operands' bindings appended to lets.
  core::ExprPtr value(const core::ExprPtr& e, Lets& lets) {
    auto copy = std::make_shared<core::Expr>(*e);
    switch (e->kind) {
      case core::Kind::Constant:
      case core::Kind::Empty: return copy;
      case core::Kind::Variable:
      case core::Kind::Pair: return operand(e, lets);
      case core::Kind::Let: {
        // Flatten nested lets: the value's bindings come first, then this one, then the body's.
        std::size_t mark = renames_.size();
        core::ExprPtr bound_value = value(e->children[0], lets);
        renames_.resize(mark);
        lets.emplace_back(rename(e->pattern), bound_value);
        return value(e->children[1], lets);
      }
      case core::Kind::If:
        copy->children = {operand(e->children[0], lets), whole(e->children[1]), whole(e->children[2])};
        return copy;
      case core::Kind::Call:
      case core::Kind::Primitive: copy->children = {operand(e->children[0], lets)}; return copy;
      case core::Kind::Sequence:
        for (core::ExprPtr& element : copy->children) element = operand(element, lets);
        return copy;
      case core::Kind::Over: {
        for (core::Generator& generator : copy->generators) generator.sequence = operand(generator.sequence, lets);
        std::size_t mark = renames_.size();
        for (core::Generator& generator : copy->generators) generator.pattern = rename(generator.pattern);
        copy->children = {whole(e->children[0])};
        renames_.resize(mark);
        return copy;
      }
    }
    return copy;
  }

  int count_ = 0;
  std::vector<std::pair<std::string, std::string>> renames_;  // innermost last
};

}  // namespace

core::Program normalize(const core::Program& program) {
  Normalizer normalizer;
  core::Program result;
  for (const core::Function& function : program.functions) {
    core::Function copy = function;
    normalizer.reset();
    copy.parameter = normalizer.rename(function.parameter);
    copy.body = normalizer.whole(function.body);
    result.functions.push_back(std::move(copy));
  }
  normalizer.reset();
  result.main = normalizer.whole(program.main);
  return result;
}

}  // namespace nesl
