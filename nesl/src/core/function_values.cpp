#include "core/specializer.hpp"

#include "nesl/diagnostics.hpp"
#include "nesl/primitives.hpp"

namespace nesl::specializing {

// The value of an expression of a type that holds functions: the functions, left to right, go
// to `known`, and what is left is returned (null when nothing is). Only a function, or a tuple
// written out, can be taken apart so.
core::ExprPtr Specializer::split(const Expr& e, std::vector<FunctionValue>& known) {
  Type type = type_of(e);
  if (!holds_function(type)) return expr(e);
  if (resolve(type)->kind == TypeNode::Kind::Function) {
    known.push_back(function_value(e));
    return known.back().environment;
  }
  if (e.kind == ExprKind::Pair) {
    core::ExprPtr left = split(*e.children[0], known);
    core::ExprPtr right = split(*e.children[1], known);
    if (!left || !right) return left ? left : right;
    return pair(left, right);
  }
  throw CompileError(e.where, "not supported: a value of type " + print_type(type) +
                                  " here, which holds a function (only a function itself, or a tuple "
                                  "written out, may be passed or bound)");
}

// The function an expression of function type denotes, which must be known when compiling.
FunctionValue Specializer::function_value(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Variable: return named_function(e.text, e.where);
    case ExprKind::Lambda: return closure(e);
    case ExprKind::Let: {
      std::size_t mark = locals_.size();
      std::vector<std::pair<core::PatternPtr, core::ExprPtr>> lets;
      for (const Binding& binding : e.bindings) bind(*binding.pattern, *binding.value, lets);
      if (!lets.empty()) {
        throw CompileError(e.where, "not supported: a let that computes data and whose value is a function");
      }
      FunctionValue result = function_value(*e.children[0]);
      locals_.resize(mark);
      return result;
    }
    case ExprKind::If:
      throw CompileError(e.where, "not supported: a function chosen at run time by an if (a function "
                                  "value must be known when compiling)");
    case ExprKind::Index:
      throw CompileError(e.where, "not supported: a function taken from a sequence (a function value "
                                  "must be known when compiling)");
    case ExprKind::Call:
      throw CompileError(e.where, "not supported: a function returned by a call (a function value "
                                  "must be known when compiling)");
    default:
      throw CompileError(e.where, "not supported: a function computed at run time (a function value "
                                  "must be known when compiling)");
  }
}

// A name used as a function: a local, a top-level binding, a datatype constructor, a program or
// basis.nesl function, or a primitive, in that order.
FunctionValue Specializer::named_function(const std::string& name, Location where) {
  if (const Local* local = find_local(name)) {
    if (!local->function) throw CompileError(where, "internal error: " + name + " is not a function");
    return *local->function;
  }
  if (source_ == &user_ && globals_.count(name) && binds_function(name)) return global_function(name, where);
  FunctionValue function;
  function.name = name;
  if (datatypes_.count(name)) {
    function.kind = FunctionValue::Kind::Constructor;
    return function;
  }
  // Operators that basis.nesl defines under a name, since NESL cannot define an operator.
  static const std::map<std::string, std::string> operator_functions = {{"^", "power"},
                                                                        {"||", "pad_string"}};
  auto alias = operator_functions.find(name);
  const std::string& defined_name = alias != operator_functions.end() ? alias->second : name;
  for (const Source* source : std::initializer_list<const Source*>{source_, &library_}) {
    auto found = source->functions.find(source == &library_ ? defined_name : name);
    if (found == source->functions.end()) continue;
    function.kind = FunctionValue::Kind::Definition;
    function.definition = found->second;
    function.source = source;
    function.name = found->second->name;
    return function;
  }
  const Primitive* primitive_found = find_primitive(name);
  if (primitive_found && primitive_found->kind != PrimitiveKind::Constant) {
    function.kind = FunctionValue::Kind::Primitive;
    return function;
  }
  if (unrolled_builtins().count(name)) {
    function.kind = FunctionValue::Kind::Primitive;
    return function;
  }
  throw CompileError(where, "not supported yet: the built-in " + name);
}

// Whether the top-level binding of `name` binds it to a function (a function defined after a
// binding of the same name hides it).
bool Specializer::binds_function(const std::string& name) const {
  const Expr* bound = pattern_variable(*globals_.at(name)->pattern, name);
  auto found = user_.checked->expression_types.find(bound);
  return found != user_.checked->expression_types.end() && resolve(found->second)->kind == TypeNode::Kind::Function;
}

const Expr* Specializer::pattern_variable(const Expr& pattern, const std::string& name) {
  if (pattern.kind == ExprKind::Variable) return pattern.text == name ? &pattern : nullptr;
  if (pattern.kind == ExprKind::Call) return pattern_variable(*pattern.children[1], name);
  for (const ExprPtr& child : pattern.children) {
    if (const Expr* found = pattern_variable(*child, name)) return found;
  }
  return nullptr;
}

// A top-level binding whose value is a function, read in a function: the same function,
// found from the binding's expression in the top level's scope.
FunctionValue Specializer::global_function(const std::string& name, Location where) {
  const GlobalBinding& binding = *globals_.at(name);
  if (binding.pattern->kind != ExprKind::Variable) {
    throw CompileError(where, "not supported: the function " + name + " bound by a tuple pattern at top level");
  }
  if (!resolving_globals_.insert(name).second) {
    throw CompileError(where, "expected a function for " + name + ", found its own binding");
  }
  std::vector<Local> saved_locals = std::move(locals_);
  locals_.clear();
  const Substitution* saved_substitution = substitution_;
  Substitution none;
  substitution_ = &none;
  FunctionValue function = function_value(*binding.value);
  substitution_ = saved_substitution;
  locals_ = std::move(saved_locals);
  resolving_globals_.erase(name);
  return function;
}

// A function expression as a value: what it reads of the local scope is captured now, the local
// functions as themselves and the local data as its environment (a tuple of their values).
FunctionValue Specializer::closure(const Expr& lambda) {
  auto made = std::make_shared<Closure>();
  made->lambda = &lambda;
  made->source = source_;
  made->substitution = *substitution_;
  std::set<std::string> names;
  collect_names(*lambda.children[0], names);
  core::ExprPtr environment;
  auto capture = [&](const Local& data, core::ExprPtr value) {
    made->data.push_back(data);
    environment = environment ? pair(environment, value) : value;
  };
  for (const std::string& name : names) {
    const Local* local = find_local(name);
    if (!local) continue;
    if (!local->function) {
      capture(*local, variable(name, local->type));
      continue;
    }
    Local function = *local;
    if (function.function->environment) {
      // A captured function expression's own environment is captured as data under a name
      // of its own, which the captured function reads where this one is called.
      const core::ExprPtr& inner = function.function->environment;
      const std::string hidden = "tmp" + std::to_string(++temporaries_) + "_";
      capture({hidden, std::nullopt, inner->type}, inner);
      function.function->environment = variable(hidden, inner->type);
    }
    made->functions.push_back(std::move(function));
  }
  made->key = "lambda@" + std::to_string(reinterpret_cast<std::uintptr_t>(&lambda)) + ":" +
              print_type(type_of(lambda));
  for (const Local& data : made->data) made->key += " " + data.name + ":" + print_type(data.type);
  for (const Local& function : made->functions) made->key += " " + function.name + "=" + function_key(*function.function);
  for (const auto& [variable_node, value] : made->substitution) made->key += " " + print_type(value);
  FunctionValue function;
  function.kind = FunctionValue::Kind::Lambda;
  function.name = "a function expression";
  function.closure = std::move(made);
  function.environment = std::move(environment);
  return function;
}

// A call of a function expression is its body where it is called, in the scope it captured:
// `let a = ARGUMENT; (captured data) = ENVIRONMENT; PARAMETER = a in BODY`.
core::ExprPtr Specializer::inline_lambda(const FunctionValue& function, core::ExprPtr argument,
                                         const std::vector<FunctionValue>& known) {
  const Closure& captured = *function.closure;
  std::vector<std::pair<core::PatternPtr, core::ExprPtr>> lets;
  core::ExprPtr argument_value;
  if (argument) {
    core::PatternPtr bound;
    argument_value = fresh_variable_pattern(argument, bound);
    lets.emplace_back(bound, argument);
  }
  const Source* saved_source = source_;
  const Substitution* saved_substitution = substitution_;
  std::vector<Local> saved_locals = std::move(locals_);
  source_ = captured.source;
  substitution_ = &captured.substitution;
  locals_ = captured.functions;
  core::PatternPtr environment_pattern;
  for (const Local& data : captured.data) {
    locals_.push_back(data);
    auto bound = std::make_shared<core::Pattern>();
    bound->name = data.name;
    bound->type = data.type;
    if (!environment_pattern) {
      environment_pattern = bound;
    } else {
      auto both = std::make_shared<core::Pattern>();
      both->kind = core::Pattern::Kind::Pair;
      both->children = {environment_pattern, bound};
      both->type = make_pair(environment_pattern->type, bound->type);
      environment_pattern = both;
    }
  }
  if (environment_pattern) lets.emplace_back(environment_pattern, function.environment);
  std::deque<FunctionValue> parameter_functions(known.begin(), known.end());
  core::PatternPtr parameter = pattern(*captured.lambda->bindings[0].pattern, &parameter_functions);
  if (parameter) lets.emplace_back(parameter, argument_value);
  core::ExprPtr body = expr(*captured.lambda->children[0]);
  source_ = saved_source;
  substitution_ = saved_substitution;
  locals_ = std::move(saved_locals);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = let(it->first, it->second, body);
  return body;
}

// A call of a known function. `argument` is the runtime part of the argument (null when it is
// all functions) and `known` the functions in it, left to right.
core::ExprPtr Specializer::apply(const FunctionValue& function, const Type& instance, core::ExprPtr argument,
                                 const std::vector<FunctionValue>& known, Type result, Location where) {
  if (holds_function(result)) {
    throw CompileError(where, "not supported: a call whose result is or holds a function (of type " +
                                  print_type(result) + ")");
  }
  switch (function.kind) {
    case FunctionValue::Kind::Constructor:
      if (!known.empty()) throw CompileError(where, "not supported: a function stored in the datatype " + function.name);
      argument->type = result;
      return argument;
    case FunctionValue::Kind::Primitive:
      if (!known.empty()) throw CompileError(where, "not supported: a function given to the built-in " + function.name);
      return builtin(function.name, std::move(argument), std::move(result));
    case FunctionValue::Kind::Lambda: return inline_lambda(function, std::move(argument), known);
    case FunctionValue::Kind::Definition: {
      auto e = core::make(core::Kind::Call, std::move(result));
      e->name = request(*function.definition, *function.source, instance, known);
      e->children = {argument ? std::move(argument) : constant(BaseType::Int, "0")};
      return e;
    }
  }
  throw CompileError(where, "internal error: unknown function value");
}

// Whether the checker gave e a type that holds a function (a tuple pattern used as a body has
// no type of its own).
bool Specializer::records_function(const Expr& e) const {
  auto found = source_->checked->expression_types.find(&e);
  return found != source_->checked->expression_types.end() && holds_function(concrete(found->second, *substitution_));
}

// An expression whose value is or holds a function where only data can go: in a sequence, an
// if's branch, a function's result, a program's result.
void Specializer::function_out_of_place(const Expr& e) {
  Type type = type_of(e);
  switch (e.kind) {
    case ExprKind::If:
      throw CompileError(e.where, "not supported: a function chosen at run time by an if (a function "
                                  "value must be known when compiling)");
    case ExprKind::Sequence:
    case ExprKind::Over:
    case ExprKind::Empty:
      throw CompileError(e.where, "not supported: a sequence of functions (of type " + print_type(type) + ")");
    case ExprKind::Variable:
      if (resolve(type)->kind == TypeNode::Kind::Function) {
        throw CompileError(e.where, "not supported: the function " + e.text +
                                        " as data (a function value may be called, passed as an "
                                        "argument or bound by let)");
      }
      break;
    default: break;
  }
  throw CompileError(e.where, "not supported: a value of type " + print_type(type) +
                                  " here, which holds a function (a function value may be called, "
                                  "passed as an argument or bound by let)");
}

}  // namespace nesl::specializing
