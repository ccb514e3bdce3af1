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
      case core::Kind::If: {
        copy->children = {operand(e->children[0], lets), whole(e->children[1]), whole(e->children[2])};
        if (core::ExprPtr call = one_call(copy, lets)) return call;
        return copy;
      }
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

  // `if c then f(a) else f(b)`, both arms calls of the same function (after bindings of their
  // own), as one call `f(a')`: an apply-to-each then makes one lifted call of f, not one per arm,
  // so that a recursion in both arms (a binary search) is log n calls deep and not one call for
  // each path taken. Each instance computes the same values: where the arms' operands differ, a'
  // takes `if c then a_i else b_i` (a SELECT for a scalar), or, when an arm binds values of its
  // own first, the tuple of the differing operands from one conditional whose arms keep their
  // bindings; an operand the arms share (a table passed on) stays as it is.
  core::ExprPtr one_call(const core::ExprPtr& e, Lets& lets) {
    const core::ExprPtr& condition = e->children[0];
    std::vector<core::ExprPtr> then_lets, else_lets;
    const core::ExprPtr then_call = innermost(e->children[1], then_lets);
    const core::ExprPtr else_call = innermost(e->children[2], else_lets);
    if (then_call->kind != core::Kind::Call || else_call->kind != core::Kind::Call || then_call->name != else_call->name) {
      return nullptr;
    }
    auto call = std::make_shared<core::Expr>(*then_call);
    call->where = e->where;
    if (then_lets.empty() && else_lets.empty()) {
      call->children = {chosen(condition, then_call->children[0], else_call->children[0], lets)};
      return call;
    }
    std::vector<Differing> differing;
    core::ExprPtr merged = merged_operand(then_call->children[0], else_call->children[0], differing);
    if (!differing.empty()) {
      std::vector<core::ExprPtr> from_then, from_else;
      for (const Differing& d : differing) {
        from_then.push_back(d.then_operand);
        from_else.push_back(d.else_operand);
      }
      auto choice = core::make(core::Kind::If, tuple_of(from_then)->type);
      choice->children = {condition, rewrap(then_lets, tuple_of(from_then)), rewrap(else_lets, tuple_of(from_else))};
      lets.emplace_back(tuple_pattern(differing, 0), choice);
    }
    call->children = {merged};
    return call;
  }

  // The body under an arm's bindings (each binding's Let node appended to `chain`).
  static core::ExprPtr innermost(core::ExprPtr e, std::vector<core::ExprPtr>& chain) {
    while (e->kind == core::Kind::Let) {
      chain.push_back(e);
      e = e->children[1];
    }
    return e;
  }

  // The arm's bindings again, around `body` in place of the call.
  static core::ExprPtr rewrap(const std::vector<core::ExprPtr>& chain, core::ExprPtr body) {
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      auto let = std::make_shared<core::Expr>(**it);
      let->type = body->type;
      let->children = {(*it)->children[0], body};
      body = let;
    }
    return body;
  }

  // An operand where the arms differ, and the variable that takes its chosen value.
  struct Differing {
    core::ExprPtr then_operand;
    core::ExprPtr else_operand;
    std::string name;
  };

  // The operand the call takes: a and b where they are the same operand; elsewhere a fresh
  // variable, named (with the two operands it stands for) in `differing`'s order.
  core::ExprPtr merged_operand(const core::ExprPtr& a, const core::ExprPtr& b,
                               std::vector<Differing>& differing) {
    if (same_operand(*a, *b)) return a;
    if (a->kind == core::Kind::Pair && b->kind == core::Kind::Pair) {
      auto pair = core::make(core::Kind::Pair, a->type);
      core::ExprPtr left = merged_operand(a->children[0], b->children[0], differing);
      pair->children = {left, merged_operand(a->children[1], b->children[1], differing)};
      return pair;
    }
    auto use = core::make(core::Kind::Variable, a->type);
    use->name = "arm" + std::to_string(++count_) + "_";
    differing.push_back({a, b, use->name});
    return use;
  }

  // The right-nested tuple of operands (one operand alone).
  static core::ExprPtr tuple_of(const std::vector<core::ExprPtr>& parts, std::size_t first = 0) {
    if (first + 1 == parts.size()) return parts[first];
    core::ExprPtr rest = tuple_of(parts, first + 1);
    auto pair = core::make(core::Kind::Pair, make_pair(parts[first]->type, rest->type));
    pair->children = {parts[first], rest};
    return pair;
  }

  // The pattern binding merged_operand's fresh variables, as tuple_of nests them.
  static core::PatternPtr tuple_pattern(const std::vector<Differing>& differing, std::size_t first) {
    auto variable = std::make_shared<core::Pattern>();
    variable->name = differing[first].name;
    variable->type = differing[first].then_operand->type;
    if (first + 1 == differing.size()) return variable;
    core::PatternPtr rest = tuple_pattern(differing, first + 1);
    auto pair = std::make_shared<core::Pattern>();
    pair->kind = core::Pattern::Kind::Pair;
    pair->type = make_pair(variable->type, rest->type);
    pair->children = {variable, rest};
    return pair;
  }

  // The operand that is `a` where `condition` holds and `b` elsewhere, bound in lets.
  core::ExprPtr chosen(const core::ExprPtr& condition, const core::ExprPtr& a, const core::ExprPtr& b, Lets& lets) {
    if (same_operand(*a, *b)) return a;
    if (a->kind == core::Kind::Pair && b->kind == core::Kind::Pair) {
      auto pair = core::make(core::Kind::Pair, a->type);
      core::ExprPtr left = chosen(condition, a->children[0], b->children[0], lets);
      pair->children = {left, chosen(condition, a->children[1], b->children[1], lets)};
      return pair;
    }
    core::ExprPtr choice;
    if (resolve(a->type)->kind == TypeNode::Kind::Base) {
      choice = core::make(core::Kind::Primitive, a->type);
      choice->name = "prim_select";
      auto rest = core::make(core::Kind::Pair, make_pair(a->type, a->type));
      rest->children = {a, b};
      auto argument = core::make(core::Kind::Pair, make_pair(condition->type, rest->type));
      argument->children = {condition, rest};
      choice->children = {argument};
    } else {
      choice = core::make(core::Kind::If, a->type);
      choice->children = {condition, a, b};
    }
    auto bound = std::make_shared<core::Pattern>();
    bound->name = "arm" + std::to_string(++count_) + "_";
    bound->type = a->type;
    lets.emplace_back(bound, choice);
    auto use = core::make(core::Kind::Variable, a->type);
    use->name = bound->name;
    return use;
  }

  static bool same_operand(const core::Expr& a, const core::Expr& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case core::Kind::Variable: return a.name == b.name;
      case core::Kind::Constant: return a.text == b.text && resolve(a.type)->base == resolve(b.type)->base;
      case core::Kind::Pair: return same_operand(*a.children[0], *b.children[0]) && same_operand(*a.children[1], *b.children[1]);
      default: return false;
    }
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
