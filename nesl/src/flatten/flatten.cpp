#include "nesl/flatten.hpp"

#include "flatten/constants.hpp"
#include "flatten/flattener.hpp"
#include "flatten/free_variables.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

Flattener::Flattener(const core::Program& program, const FlattenOptions& options)
    : program_(program), options_(options) {
  for (const core::Function& function : program.functions) functions_[function.name] = &function;
}

flat::Program Flattener::run() {
  flat::Program result;
  result.functions.push_back(main_function());
  while (!pending_.empty()) {
    auto [name, lifted] = pending_.front();
    pending_.pop_front();
    result.functions.push_back(function(*functions_.at(name), lifted));
  }
  for (auto& [message, error_function] : error_functions_) result.functions.push_back(std::move(error_function));
  return result;
}

std::string Flattener::request(const std::string& name, bool lifted) {
  std::string flat_name = lifted ? "L" + name : name;
  if (requested_.insert(flat_name).second) pending_.emplace_back(name, lifted);
  return flat_name;
}

flat::Function Flattener::main_function() {
  flat::Function function;
  function.name = "MAIN_0";
  where_ = {};
  current_ = &function;
  block_ = &function.body;
  context_ = -1;
  env_.clear();
  hoist_.clear();
  function.results = expr(*program_.main);
  return function;
}

flat::Function Flattener::function(const core::Function& source, bool lifted) {
  flat::Function function;
  function.name = lifted ? "L" + source.name : source.name;
  where_ = {};
  current_ = &function;
  block_ = &function.body;
  env_.clear();
  hoist_.clear();
  for (Leaf leaf : leaves_of(source.parameter->type)) function.parameters.push_back(fresh(leaf));
  context_ = -1;
  if (lifted) {
    context_ = fresh(Leaf::Segdes);
    function.parameters.push_back(context_);
  }
  bind(*source.parameter, slice(function.parameters, 0, slots(source.parameter->type)));
  // A lifted function's closed subexpressions are computed once per call, unlifted, and copied
  // to every instance (the classic's: `rand(1000) + x` draws once per call of the function).
  HoistScope scope{{}, -1, context_, context_, {}};
  if (lifted) hoist_.push_back(&scope);
  function.results = expr(*source.body);
  hoist_.clear();
  return function;
}

void Flattener::bind(const core::Pattern& pattern, const Leaves& leaves) {
  if (pattern.kind == core::Pattern::Kind::Variable) {
    env_.push_back({pattern.name, leaves, pattern.type});
    return;
  }
  std::size_t left = slots(pattern.children[0]->type);
  bind(*pattern.children[0], slice(leaves, 0, left));
  bind(*pattern.children[1], slice(leaves, left, leaves.size() - left));
}

const Variable& Flattener::find(const std::string& name) const {
  for (auto it = env_.rbegin(); it != env_.rend(); ++it) {
    if (it->name == name) return *it;
  }
  throw CompileError({}, "internal error: flatten found the unbound variable " + name);
}

bool Flattener::hoistable(const core::Expr& e) const {
  if (hoist_.empty() || !hoist_.back()) return false;
  switch (e.kind) {
    case core::Kind::Call:
    case core::Kind::Primitive:
    case core::Kind::Over:
    case core::Kind::Sequence:
    case core::Kind::If: break;
    default: return false;
  }
  for (const std::string& name : free_variables(e)) {
    if (!hoist_.back()->closed.count(name)) return false;
  }
  return true;
}

// A closed subexpression of an apply-to-each's body is computed once, in the enclosing
// context, then copied to each element: `{rand(10) : i in s}` draws once. Returns the value in
// the enclosing context and copied. One that can stop the program runs only when there are
// elements (a valid program never fails for an expression its elements do not reach).
std::pair<Leaves, Leaves> Flattener::hoisted(const core::Expr& e) {
  HoistScope* scope = hoist_.back();
  auto saved_env = env_;
  Value saved_context = context_;
  hoist_.pop_back();
  env_ = scope->outer_env;
  context_ = scope->outer_context;
  const auto compute = [&] {
    Leaves both = expr(e);
    const Leaves copies = replicate(e.type, both, scope->segdes, scope->inner);
    both.insert(both.end(), copies.begin(), copies.end());
    return both;
  };
  Leaves both;
  if (can_fail(e)) {
    const Value none = op1(Op::Equal, Leaf::Int, {lengths(scope->inner), int_constant(0)});
    both = choose(
        none, make_pair(e.type, e.type),
        [&] {
          Leaves nothing = zero_value(e.type);
          const Leaves empty = empty_lifted(e.type);
          nothing.insert(nothing.end(), empty.begin(), empty.end());
          return nothing;
        },
        compute);
  } else {
    both = compute();
  }
  hoist_.push_back(scope);
  env_ = saved_env;
  context_ = saved_context;
  const std::size_t half = both.size() / 2;
  return {slice(both, 0, half), slice(both, half, half)};
}

Leaves Flattener::expr(const core::Expr& e) {
  const Located located(where_, e.where);
  const auto& c = e.children;
  if (e.kind != core::Kind::Let && hoistable(e)) return hoisted(e).second;
  switch (e.kind) {
    case core::Kind::Constant: {
      Leaf leaf = base_leaf(resolve(e.type)->base);
      return {everywhere(literal(leaf, e.text, e.where))};
    }
    case core::Kind::Variable: return lookup(e.name);
    case core::Kind::Pair: {
      Leaves left = expr(*c[0]);
      Leaves right = expr(*c[1]);
      left.insert(left.end(), right.begin(), right.end());
      return left;
    }
    case core::Kind::Let: {
      Leaves value;
      if (hoistable(*c[0])) {
        auto [outer_value, copies] = hoisted(*c[0]);
        HoistScope* scope = hoist_.back();
        std::swap(env_, scope->outer_env);
        bind(*e.pattern, outer_value);
        std::swap(env_, scope->outer_env);
        pattern_names(*e.pattern, scope->closed);
        value = copies;
      } else {
        value = expr(*c[0]);
      }
      std::size_t mark = env_.size();
      bind(*e.pattern, value);
      Leaves body = expr(*c[1]);
      env_.resize(mark);
      return body;
    }
    case core::Kind::If: return context_ < 0 ? serial_if(e) : lifted_if(e);
    case core::Kind::Call: {
      flat::Statement s;
      s.kind = flat::Statement::Kind::Call;
      s.callee = request(e.name, context_ >= 0);
      s.inputs = expr(*c[0]);
      if (context_ >= 0) s.inputs.push_back(context_);
      for (Leaf leaf : leaves_of(e.type)) s.outputs.push_back(fresh(leaf));
      return emit(std::move(s)).outputs;
    }
    case core::Kind::Primitive: return primitive(e);
    case core::Kind::Over: return over(e);
    case core::Kind::Sequence: return sequence(e);
    case core::Kind::Empty: return empty_sequence(e.type);
  }
  throw CompileError({}, "internal error: flatten met an unknown expression");
}

Leaves Flattener::over(const core::Expr& e) {
  Value outer = context();
  std::vector<Leaves> sequences;
  for (const core::Generator& g : e.generators) sequences.push_back(expr(*g.sequence));
  Value segdes = sequences[0][0];
  Value first_lengths = lengths(segdes);
  for (std::size_t i = 1; i < sequences.size() && options_.argument_checks; ++i) {
    Value mismatch = op1(Op::NotEqual, Leaf::Int, {first_lengths, lengths(sequences[i][0])});
    check(mismatch, "Length mismatch in an apply-to-each.");
  }
  Value inner = context_ < 0 ? segdes : total_context(segdes, outer);
  std::vector<Variable> inner_env;
  std::set<std::string> bound;
  for (const core::Generator& g : e.generators) pattern_names(*g.pattern, bound);
  std::set<std::string> free;
  free_variables(*e.children[0], bound, free);
  for (const std::string& name : free) {
    const Variable& v = find(name);
    inner_env.push_back({name, replicate(v.type, v.leaves, segdes, inner), v.type});
  }
  // As the classic: only what reads no variable is hoisted (and what a hoisted let binds).
  HoistScope scope{env_, context_, segdes, inner, {}};
  auto saved_env = env_;
  Value saved_context = context_;
  env_ = inner_env;
  context_ = inner;
  for (std::size_t i = 0; i < e.generators.size(); ++i) {
    bind(*e.generators[i].pattern, slice(sequences[i], 1, sequences[i].size() - 1));
  }
  hoist_.push_back(&scope);
  Leaves body = expr(*e.children[0]);
  hoist_.pop_back();
  env_ = saved_env;
  context_ = saved_context;
  Leaves result = {segdes};
  result.insert(result.end(), body.begin(), body.end());
  return result;
}

Leaves Flattener::sequence(const core::Expr& e) {
  Type element = element_type(e.type);
  std::size_t count = e.children.size();
  Type resolved = resolve(element);
  bool all_constant = context_ < 0 && resolved->kind == TypeNode::Kind::Base;
  for (const core::ExprPtr& child : e.children) all_constant = all_constant && child->kind == core::Kind::Constant;
  if (all_constant) {
    Leaf leaf = base_leaf(resolved->base);
    vcode::Constant elements = empty_vector(leaf);
    for (const core::ExprPtr& child : e.children) {
      const vcode::Constant element = literal(leaf, child->text, child->where);
      elements.ints.insert(elements.ints.end(), element.ints.begin(), element.ints.end());
      elements.floats.insert(elements.floats.end(), element.floats.begin(), element.floats.end());
    }
    Value segdes = make_segdes(int_constant(static_cast<long>(count)));
    return {segdes, constant(std::move(elements))};
  }
  std::vector<Leaves> elements;
  for (const core::ExprPtr& child : e.children) elements.push_back(expr(*child));
  // Instance j's element i goes to position j * count + i of the concatenation.
  Value outer = context();
  Value instances = lengths(outer);
  Value segdes = make_segdes(op1(Op::Dist, Leaf::Int, {int_constant(static_cast<long>(count)), outer}));
  // One element per instance: the concatenation is that element's lifted value as it is.
  if (count == 1) {
    Leaves result = {segdes};
    result.insert(result.end(), elements[0].begin(), elements[0].end());
    return result;
  }
  Value total = make_segdes(op1(Op::Mul, Leaf::Int, {instances, int_constant(static_cast<long>(count))}));
  std::vector<Part> parts;
  for (std::size_t i = 0; i < count; ++i) {
    Value positions =
        op1(Op::Index, {int_constant(static_cast<long>(i)), int_constant(static_cast<long>(count)), outer});
    parts.push_back({elements[i], positions, outer});
  }
  Leaves result = {segdes};
  Leaves rest = merge(element, parts, total);
  result.insert(result.end(), rest.begin(), rest.end());
  return result;
}

}  // namespace nesl::flattening

namespace nesl {

flat::Program flatten(const core::Program& program, const FlattenOptions& options) {
  return flattening::Flattener(program, options).run();
}

}  // namespace nesl
