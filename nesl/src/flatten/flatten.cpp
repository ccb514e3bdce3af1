#include "nesl/flatten.hpp"

#include "flatten/constants.hpp"
#include "flatten/flattener.hpp"
#include "flatten/free_variables.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

void add_reads(const flat::Block& block, std::size_t from, std::vector<bool>& read) {
  for (std::size_t i = from; i < block.size(); ++i) {
    const flat::Statement& s = block[i];
    for (Value v : s.inputs) read[v] = true;
    for (Value v : s.then_results) read[v] = true;
    for (Value v : s.else_results) read[v] = true;
    add_reads(s.then_block, 0, read);
    add_reads(s.else_block, 0, read);
  }
}

namespace {

// Drops the operations of block[from, to) (a body's variables entering it) whose values neither
// what follows them nor the body's result reads: a variable that only hoisted expressions read
// is not copied to each element.
void drop_unread(flat::Block& block, std::size_t from, std::size_t to, const Leaves& results, std::size_t values) {
  std::vector<bool> read(values, false);
  for (Value v : results) read[v] = true;
  add_reads(block, to, read);
  for (std::size_t i = to; i-- > from;) {
    const flat::Statement& s = block[i];
    bool used = s.kind != flat::Statement::Kind::Op && s.kind != flat::Statement::Kind::Const;
    for (Value v : s.outputs) used = used || read[v];
    if (!used) {
      block.erase(block.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    for (Value v : s.inputs) read[v] = true;
  }
}

std::size_t pattern_variables(const core::Pattern& pattern) {
  if (pattern.kind == core::Pattern::Kind::Variable) return 1;
  return pattern_variables(*pattern.children[0]) + pattern_variables(*pattern.children[1]);
}

// An instance's flat name: L for the lifted twin, _S and the sharing when a parameter is shared,
// _N when its context is a nested level's (segmented).
std::string instance_name(const std::string& name, bool lifted, const std::string& sharing, bool segmented) {
  std::string flat_name = lifted ? "L" + name : name;
  if (sharing.find_first_not_of('l') != std::string::npos) flat_name += "_S" + sharing;
  if (segmented) flat_name += "_N";
  return flat_name;
}

}  // namespace

Flattener::Flattener(const core::Program& program, const FlattenOptions& options, std::set<std::string> flat_anyway)
    : program_(program), options_(options), flat_anyway_(std::move(flat_anyway)) {
  for (const core::Function& function : program.functions) functions_[function.name] = &function;
  varying_ = varying_functions(program.functions);
}

flat::Program Flattener::run() {
  flat::Program result;
  result.functions.push_back(main_function());
  while (!pending_.empty()) {
    const Instance next = pending_.front();
    pending_.pop_front();
    result.functions.push_back(function(*functions_.at(next.name), next.lifted, next.sharing, next.segmented));
  }
  for (auto& [message, error_function] : error_functions_) result.functions.push_back(std::move(error_function));
  return result;
}

std::string Flattener::request(const std::string& name, bool lifted, const std::string& sharing, bool segmented) {
  const std::string flat_name = instance_name(name, lifted, sharing, segmented);
  if (requested_.insert(flat_name).second) pending_.push_back({name, lifted, sharing, segmented});
  return flat_name;
}

void Flattener::call_arguments(const core::Pattern& parameter, const core::Expr& argument, Leaves& inputs,
                               std::string& sharing) {
  if (parameter.kind == core::Pattern::Kind::Pair && argument.kind == core::Kind::Pair) {
    call_arguments(*parameter.children[0], *argument.children[0], inputs, sharing);
    call_arguments(*parameter.children[1], *argument.children[1], inputs, sharing);
    return;
  }
  const Variable* shared = nullptr;
  if (parameter.kind == core::Pattern::Kind::Variable && argument.kind == core::Kind::Variable) {
    const Variable& v = find(argument.name);
    if (v.shared) shared = &v;
  }
  if (!shared) {
    const Leaves leaves = expr(argument);
    inputs.insert(inputs.end(), leaves.begin(), leaves.end());
    sharing.append(pattern_variables(parameter), 'l');
    return;
  }
  inputs.insert(inputs.end(), shared->leaves.begin(), shared->leaves.end());
  if (shared->groups < 0) {
    sharing += 'u';
    return;
  }
  inputs.push_back(shared->groups);
  sharing += 'g';
}

void Flattener::bind_parameters(const core::Pattern& pattern, const std::string& sharing, std::size_t& next,
                                flat::Function& function) {
  if (pattern.kind == core::Pattern::Kind::Pair) {
    bind_parameters(*pattern.children[0], sharing, next, function);
    bind_parameters(*pattern.children[1], sharing, next, function);
    return;
  }
  const char how = next < sharing.size() ? sharing[next] : 'l';
  ++next;
  Variable v{pattern.name, {}, pattern.type};
  for (Leaf leaf : leaves_of(pattern.type)) v.leaves.push_back(fresh(leaf));
  function.parameters.insert(function.parameters.end(), v.leaves.begin(), v.leaves.end());
  if (how != 'l') {
    v.shared = true;
    if (how == 'g') {
      v.groups = fresh(Leaf::Segdes);
      function.parameters.push_back(v.groups);
    }
  }
  env_.push_back(std::move(v));
}

flat::Function Flattener::main_function() {
  flat::Function function;
  function.name = "MAIN_0";
  where_ = {};
  current_ = &function;
  block_ = &function.body;
  nonzero_.clear();
  segmented_.clear();
  context_ = -1;
  env_.clear();
  hoist_.clear();
  function.results = expr(*program_.main);
  return function;
}

flat::Function Flattener::function(const core::Function& source, bool lifted, const std::string& sharing,
                                   bool segmented) {
  flat::Function function;
  function.name = instance_name(source.name, lifted, sharing, segmented);
  where_ = {};
  current_ = &function;
  block_ = &function.body;
  nonzero_.clear();
  segmented_.clear();
  env_.clear();
  hoist_.clear();
  std::size_t next = 0;
  bind_parameters(*source.parameter, sharing, next, function);
  context_ = -1;
  // A segmented instance's context may have any number of segments (a nested level's caller
  // gives its generator's descriptor): their count is one segment of units.
  if (lifted) {
    context_ = fresh(Leaf::Segdes);
    function.parameters.push_back(context_);
    if (segmented) segmented_context(context_, make_segdes(op1(Op::Length, Leaf::Int, {lengths(context_)})));
  }
  const std::size_t context_end = function.body.size();
  // A parameter given shared that the body copies anyway is copied once, here.
  for (Variable& v : env_) {
    if (v.shared && !read_in_place(*source.body, v.name)) {
      v.leaves = value_of(v);
      v.shared = false;
    }
  }
  // A lifted function's closed subexpressions are computed once per call, unlifted, and copied
  // to every instance (the classic's: `rand(1000) + x` draws once per call of the function).
  HoistScope scope{{}, -1, lifted ? context() : context_, context_, {}, {}};
  if (lifted) hoist_.push_back(&scope);
  function.results = expr(*source.body);
  hoist_.clear();
  if (lifted && settle(context_, function.body, 0, function.results)) flat_read_.insert(function.name);
  drop_unread(function.body, 0, context_end, function.results, function.leaves.size());
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
  if (const Variable* found = env_.find(name)) return *found;
  throw CompileError({}, "internal error: flatten found the unbound variable " + name);
}

Leaves Flattener::value_of(const Variable& v) {
  if (!v.shared) return v.leaves;
  if (v.groups >= 0) return copies_by_group(v.type, v.leaves, v.groups);
  return gather(v.type, v.leaves, everywhere(zero_of(Leaf::Int)), make_segdes(int_constant(1)), context());
}

Variable Flattener::entered(const Variable& v, Value segdes, const core::Expr& body) {
  const bool share = resolve(v.type)->kind == TypeNode::Kind::Sequence && read_in_place(body, v.name);
  if (!share) return {v.name, replicate(v.type, value_of(v), segdes), v.type};
  Variable inside = v;
  if (v.shared) {
    // An outer instance's elements are those of its current instances, which follow each other.
    if (v.groups >= 0) inside.groups = make_segdes(op1(Op::PlusReduce, Leaf::Int, {lengths(segdes), v.groups}));
    return inside;
  }
  inside.shared = true;
  if (context_ >= 0) inside.groups = segdes;  // else one instance, whose value every element reads
  return inside;
}

Flattener::Hoist Flattener::hoisting(const core::Expr& e) const {
  if (hoist_.empty() || !hoist_.back()) return Hoist::No;
  switch (e.kind) {
    case core::Kind::Call:
    case core::Kind::Primitive:
    case core::Kind::Over:
    case core::Kind::Sequence:
    case core::Kind::If: break;
    default: return Hoist::No;
  }
  const std::set<std::string> reads = free_variables(e);
  const auto all_in = [&](const std::set<std::string>& names) {
    for (const std::string& name : reads) {
      if (!names.count(name)) return false;
    }
    return true;
  };
  // The classic's rule: a closed expression, whatever it does.
  if (all_in(hoist_.back()->closed)) return Hoist::Closed;
  // Ours: one that reads only what the elements share and gives the same value each time.
  if (!all_in(hoist_.back()->invariant) || !deterministic(e, varying_)) return Hoist::No;
  return Hoist::Invariant;
}

// Scalar arithmetic that can fail, and a range or a dist that each element would copy, are made
// per element instead: the copy costs what making them does, and made per element they need no
// guard per instance, nor a gather (nor memory the streaming back end does not).
bool Flattener::made_per_element(const core::Expr& e, const core::Pattern* name, const core::Expr* body) const {
  if (scalar_arithmetic(e) && can_fail(e)) return true;
  if (e.kind != core::Kind::Primitive) return false;
  const Primitive* p = find_primitive(e.name);
  if (!p || (p->kind != PrimitiveKind::Range && p->kind != PrimitiveKind::Dist)) return false;
  const bool shared = name && name->kind == core::Pattern::Kind::Variable && read_in_place(*body, name->name);
  return !shared;
}

bool Flattener::hoistable(const core::Expr& e) const {
  const Hoist how = hoisting(e);
  return how == Hoist::Closed || (how == Hoist::Invariant && !made_per_element(e, nullptr, nullptr));
}

// A hoistable subexpression of an apply-to-each's body is computed once per enclosing instance,
// in the enclosing context: `{rand(10) : i in s}` draws once, `{transpose(b) : r in a}`
// transposes once. One that can stop the program runs only where there are elements (a valid
// program never fails for an expression its elements do not reach): a closed one when any
// instance has some (it is the same for all), an invariant one for each instance that has some.
Leaves Flattener::hoisted(const core::Expr& e) {
  const bool closed = hoisting(e) == Hoist::Closed;
  HoistScope* scope = hoist_.back();
  Value saved_context = context_;
  hoist_.pop_back();
  std::swap(env_, scope->outer_env);  // not copied: a long chain of hoisted lets stays linear
  context_ = scope->outer_context;
  Leaves outer;
  if (can_fail(e)) {
    const Value none = op1(Op::Equal, Leaf::Int, {lengths(flat_of(scope->inner)), int_constant(0)});
    outer = choose(none, e.type, [&] { return zero_value(e.type); },
                   [&] { return closed || context_ < 0 ? expr(e) : where_elements(e, scope->segdes); });
  } else {
    outer = expr(e);
  }
  hoist_.push_back(scope);
  std::swap(env_, scope->outer_env);
  context_ = saved_context;
  return outer;
}

Variable Flattener::hoisted_variable(const std::string& name, const Type& type, const Leaves& outer,
                                     const core::Expr& body) {
  const HoistScope& scope = *hoist_.back();
  const Value saved_context = context_;
  context_ = scope.outer_context;
  Variable inside = entered({name, outer, type}, scope.segdes, body);
  context_ = saved_context;
  return inside;
}

Leaves Flattener::hoisted_copies(const Type& type, const Leaves& outer) {
  const HoistScope& scope = *hoist_.back();
  const Value saved_context = context_;
  context_ = scope.outer_context;
  Leaves copies = replicate(type, outer, scope.segdes);
  context_ = saved_context;
  return copies;
}

// A let in an apply-to-each's body: a hoistable value is computed outside and its names join
// the invariant ones (the closed ones too when the value was closed); any other binding hides
// the enclosing variable of its name until the let's body ends.
Leaves Flattener::let(const core::Expr& e) {
  const core::Expr& value = *e.children[0];
  const core::Expr& body = *e.children[1];
  HoistScope* scope = hoist_.empty() ? nullptr : hoist_.back();
  const std::size_t mark = env_.size();
  if (!scope) {
    bind(*e.pattern, expr(value));
    Leaves result = expr(body);
    env_.resize(mark);
    return result;
  }
  std::set<std::string> names;
  pattern_names(*e.pattern, names);
  struct Saved {
    std::string name;
    bool closed, invariant;
  };
  std::vector<Saved> saved;
  for (const std::string& name : names) saved.push_back({name, scope->closed.count(name) > 0, scope->invariant.count(name) > 0});
  const std::size_t outer_mark = scope->outer_env.size();
  const auto join = [&](bool closed) {
    for (const std::string& name : names) {
      if (closed) {
        scope->closed.insert(name);
      } else {
        scope->closed.erase(name);
      }
      scope->invariant.insert(name);
    }
  };
  const Hoist how = hoisting(value);
  if (how == Hoist::Closed || (how == Hoist::Invariant && !made_per_element(value, e.pattern.get(), &body))) {
    const bool closed = how == Hoist::Closed;
    const Leaves outer = hoisted(value);
    std::swap(env_, scope->outer_env);
    bind(*e.pattern, outer);
    std::swap(env_, scope->outer_env);
    join(closed);
    for (const std::string& name : names) {
      const Variable& v = *scope->outer_env.find(name);
      env_.push_back(hoisted_variable(name, v.type, v.leaves, body));
    }
  } else {
    bind(*e.pattern, expr(value));
    const bool alias = value.kind == core::Kind::Variable && e.pattern->kind == core::Pattern::Kind::Variable &&
                       scope->invariant.count(value.name);
    if (alias) {  // another name for an invariant variable (normalize's) is invariant too
      Variable outer = *scope->outer_env.find(value.name);
      const bool closed = scope->closed.count(value.name) > 0;
      outer.name = e.pattern->name;
      scope->outer_env.push_back(std::move(outer));
      join(closed);
    } else {
      for (const std::string& name : names) {
        scope->closed.erase(name);
        scope->invariant.erase(name);
      }
    }
  }
  Leaves result = expr(body);
  env_.resize(mark);
  scope->outer_env.resize(outer_mark);
  for (const Saved& s : saved) {
    if (s.closed) {
      scope->closed.insert(s.name);
    } else {
      scope->closed.erase(s.name);
    }
    if (s.invariant) {
      scope->invariant.insert(s.name);
    } else {
      scope->invariant.erase(s.name);
    }
  }
  return result;
}

Leaves Flattener::expr(const core::Expr& e) {
  const Located located(where_, e.where);
  const auto& c = e.children;
  if (e.kind != core::Kind::Let && hoistable(e)) return hoisted_copies(e.type, hoisted(e));
  switch (e.kind) {
    case core::Kind::Constant: {
      Leaf leaf = base_leaf(resolve(e.type)->base);
      return {everywhere(literal(leaf, e.text, e.where))};
    }
    case core::Kind::Variable: return value_of(find(e.name));
    case core::Kind::Pair: {
      Leaves left = expr(*c[0]);
      Leaves right = expr(*c[1]);
      left.insert(left.end(), right.begin(), right.end());
      return left;
    }
    case core::Kind::Let: return let(e);
    case core::Kind::If: return context_ < 0 ? serial_if(e) : lifted_if(e);
    case core::Kind::Call: {
      flat::Statement s;
      s.kind = flat::Statement::Kind::Call;
      if (context_ >= 0) {
        std::string sharing;
        call_arguments(*functions_.at(e.name)->parameter, *c[0], s.inputs, sharing);
        // An instance known to make its flat context anyway is given it (FLATTENING.md
        // "Contexts"): the caller's may be shared with its own uses.
        const bool segmented =
            segmented_.count(context_) && !flat_anyway_.count(instance_name(e.name, true, sharing, true));
        s.inputs.push_back(segmented ? context_ : flat_of(context_));
        s.callee = request(e.name, true, sharing, segmented);
      } else {
        s.inputs = expr(*c[0]);
        s.callee = request(e.name, false);
      }
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
  std::vector<Leaves> sequences;
  for (const core::Generator& g : e.generators) sequences.push_back(expr(*g.sequence));
  Value segdes = sequences[0][0];
  Value first_lengths = lengths(segdes);
  for (std::size_t i = 1; i < sequences.size() && options_.argument_checks; ++i) {
    Value mismatch = op1(Op::NotEqual, Leaf::Int, {first_lengths, lengths(sequences[i][0])});
    check(mismatch, "Length mismatch in an apply-to-each.");
  }
  // The body's context is the generator's descriptor, one segment per enclosing instance.
  Value inner = segdes;
  const std::size_t context_start = block_->size();
  // A descriptor that is an enclosing level's context too (one sequence read at two levels) is
  // made anew: each context is known by its value.
  if (segmented_.count(inner)) inner = make_segdes(lengths(segdes));
  if (context_ >= 0) segmented_context(inner, context());
  const std::size_t context_end = block_->size();
  std::vector<Variable> inner_env;
  std::set<std::string> bound;
  for (const core::Generator& g : e.generators) pattern_names(*g.pattern, bound);
  std::set<std::string> free;
  free_variables(*e.children[0], bound, free);
  const std::size_t entering = block_->size();
  for (const std::string& name : free) inner_env.push_back(entered(find(name), segdes, *e.children[0]));
  const std::size_t entered_end = block_->size();
  // The scope holds the enclosing variables while the body runs (hoisted lets come and go).
  HoistScope scope{std::move(env_), context_, segdes, inner, {}, free};
  Value saved_context = context_;
  env_ = inner_env;
  context_ = inner;
  for (std::size_t i = 0; i < e.generators.size(); ++i) {
    bind(*e.generators[i].pattern, slice(sequences[i], 1, sequences[i].size() - 1));
  }
  hoist_.push_back(&scope);
  Leaves body = expr(*e.children[0]);
  hoist_.pop_back();
  env_ = std::move(scope.outer_env);
  context_ = saved_context;
  drop_unread(*block_, entering, entered_end, body, current_->leaves.size());
  settle(inner, *block_, context_start, body);
  segmented_.erase(inner);
  drop_unread(*block_, context_start, context_end, body, current_->leaves.size());
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

// Flattened again while a pass learns of segmented instances that make their flat context anyway:
// the next gives them a flat one (each pass only adds to what the last learned).
flat::Program flatten(const core::Program& program, const FlattenOptions& options) {
  std::set<std::string> flat_anyway;
  for (;;) {
    flattening::Flattener flattener(program, options, flat_anyway);
    flat::Program result = flattener.run();
    const std::size_t known = flat_anyway.size();
    flat_anyway.insert(flattener.flat_read().begin(), flattener.flat_read().end());
    if (flat_anyway.size() == known) return result;
  }
}

}  // namespace nesl
