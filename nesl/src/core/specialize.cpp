#include "nesl/specialize.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "nesl/diagnostics.hpp"
#include "nesl/primitives.hpp"

namespace nesl {
namespace {

using Substitution = std::map<const TypeNode*, Type>;

// Where a definition comes from: the user's program or basis.nesl; each has its own types.
struct Source {
  const Program* program;
  const CheckedProgram* checked;
  std::map<std::string, const FunctionDefinition*> functions;
};

struct Closure;

// A function value, which is always known when compiling: a named function of the program or
// basis.nesl, a primitive, a datatype's constructor, or a function expression `(x => e)`. A
// function taking one is copied for each function it is given, which it then calls directly.
// Only a function expression has data at run time: the values of the local variables it reads
// (its environment), which go where the function goes, as data.
struct FunctionValue {
  enum class Kind { Definition, Primitive, Constructor, Lambda };
  Kind kind = Kind::Definition;
  const FunctionDefinition* definition = nullptr;  // Definition
  const Source* source = nullptr;                  // Definition
  std::string name;
  std::shared_ptr<const Closure> closure;          // Lambda
  core::ExprPtr environment;                       // Lambda: here, its environment's value (null if none)
};

// A variable in scope; a function-valued one holds the function it names.
struct Local {
  std::string name;
  std::optional<FunctionValue> function;
  Type type = nullptr;  // a data variable's concrete type
};

// What a function expression needs to be compiled where it is called: its syntax, the types it
// was checked with, the local functions it names and the local data it reads, which its
// environment holds in this order.
struct Closure {
  const Expr* lambda = nullptr;
  const Source* source = nullptr;
  Substitution substitution;
  std::vector<Local> functions;
  std::vector<Local> data;
  std::string key;  // tells instances given different function expressions apart
};

// A function instance to make, or a top-level binding's variable read inside a function.
struct Pending {
  const FunctionDefinition* definition;
  const Source* source;
  Substitution substitution;
  std::string name;
  const GlobalBinding* global = nullptr;
  std::string global_variable;
  // The functions its function-valued parameters are bound to, left to right.
  std::vector<FunctionValue> known = {};
};

// Whether a value of this type is or holds a function.
bool holds_function(const Type& type) {
  Type t = resolve(type);
  if (t->kind == TypeNode::Kind::Function) return true;
  if (t->kind == TypeNode::Kind::Sequence || t->kind == TypeNode::Kind::Pair) {
    for (const Type& child : t->children) {
      if (holds_function(child)) return true;
    }
  }
  return false;
}

std::string vcode_name(const std::string& nesl_name, int number) {
  std::string name;
  for (char c : nesl_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else {
      name += '_';
    }
  }
  if (name.size() > 30) name.resize(30);
  return name + "_" + std::to_string(number);
}

class Specializer {
 public:
  Specializer(const Program& program, const CheckedProgram& checked, const Library& library)
      : user_{&program, &checked, {}}, library_{&library.program, &library.checked, {}} {
    for (Source* source : {&user_, &library_}) {
      for (const TopLevelForm& form : source->program->forms) {
        if (form.kind == TopLevelForm::Kind::Function) source->functions[form.function.name] = &form.function;
        if (form.kind == TopLevelForm::Kind::Datatype) datatypes_.insert(form.datatype.name);
        if (source == &user_ && form.kind == TopLevelForm::Kind::Binding) {
          collect_globals(*form.binding.pattern, form.binding);
        }
      }
    }
  }

  core::Program run() {
    core::Program result;
    result.main = main_body(false);
    drain(result);
    // The classic runs each top-level binding in a VM of its own, so each, and the program
    // after them, draws from a fresh random stream; SRAND 1 restarts the default one.
    if (has_bindings() && uses_primitive(result, "rand")) {
      result.main = main_body(true);
      drain(result);
    }
    return result;
  }

  void drain(core::Program& result) {
    while (!pending_.empty()) {
      Pending next = std::move(pending_.front());
      pending_.pop_front();
      result.functions.push_back(instance(next));
    }
  }

  bool has_bindings() const {
    for (const TopLevelForm& form : user_.program->forms) {
      if (form.kind == TopLevelForm::Kind::Binding) return true;
    }
    return false;
  }

  static bool uses_primitive(const core::Expr& e, const std::string& name) {
    if (e.kind == core::Kind::Primitive && e.name == name) return true;
    for (const core::ExprPtr& child : e.children) {
      if (uses_primitive(*child, name)) return true;
    }
    for (const core::Generator& g : e.generators) {
      if (uses_primitive(*g.sequence, name)) return true;
    }
    return false;
  }

  static bool uses_primitive(const core::Program& program, const std::string& name) {
    if (uses_primitive(*program.main, name)) return true;
    for (const core::Function& f : program.functions) {
      if (uses_primitive(*f.body, name)) return true;
    }
    return false;
  }

 private:
  // --- types ---------------------------------------------------------------------------------

  // The concrete type: variables by the substitution (unconstrained ones are int: nothing
  // observable depends on them), datatypes by their fields.
  Type concrete(const Type& type, const Substitution& substitution) const {
    Type t = resolve(type);
    switch (t->kind) {
      case TypeNode::Kind::Variable: {
        auto found = substitution.find(t.get());
        if (found != substitution.end()) return found->second;
        if (!t->type_class.any && !t->type_class.admits(BaseType::Int)) {
          for (BaseType base : {BaseType::Float, BaseType::Char, BaseType::Bool}) {
            if (t->type_class.admits(base)) return make_base(base);
          }
        }
        return make_base(BaseType::Int);
      }
      case TypeNode::Kind::Base: return t;
      case TypeNode::Kind::Sequence: return make_sequence(concrete(t->children[0], substitution));
      case TypeNode::Kind::Pair:
        return make_pair(concrete(t->children[0], substitution), concrete(t->children[1], substitution));
      case TypeNode::Kind::Function:
        return make_function(concrete(t->children[0], substitution), concrete(t->children[1], substitution));
      case TypeNode::Kind::Datatype: {
        Type constructor = constructor_of(t->name);
        Type generic_result = resolve(resolve(constructor)->children[1]);
        Substitution parameters;
        for (std::size_t i = 0; i < t->children.size(); ++i) {
          Type parameter = resolve(generic_result->children[i]);
          if (parameter->kind == TypeNode::Kind::Variable) {
            parameters[parameter.get()] = concrete(t->children[i], substitution);
          }
        }
        return concrete(resolve(constructor)->children[0], parameters);
      }
    }
    return t;
  }

  Type constructor_of(const std::string& name) const {
    for (const Source* source : {&user_, &library_}) {
      auto found = source->checked->datatype_constructors.find(name);
      if (found != source->checked->datatype_constructors.end()) return found->second;
    }
    throw CompileError({}, "internal error: unknown datatype " + name);
  }

  // Extends the substitution so that the generic type becomes the concrete one.
  void match(const Type& generic, const Type& concrete_type, Substitution& substitution) const {
    Type g = resolve(generic);
    Type c = resolve(concrete_type);
    switch (g->kind) {
      case TypeNode::Kind::Variable: substitution.emplace(g.get(), c); return;
      case TypeNode::Kind::Base: return;
      case TypeNode::Kind::Datatype: {
        // Match the fields, then read each parameter's value off the constructor's variables.
        Type constructor = resolve(constructor_of(g->name));
        Substitution fields;
        match(constructor->children[0], c, fields);
        Type generic_result = resolve(constructor->children[1]);
        for (std::size_t i = 0; i < g->children.size(); ++i) {
          Type parameter = resolve(generic_result->children[i]);
          auto found = fields.find(parameter.get());
          if (found != fields.end()) match(g->children[i], found->second, substitution);
        }
        return;
      }
      default:
        if (c->kind != g->kind || c->children.size() != g->children.size()) return;
        for (std::size_t i = 0; i < g->children.size(); ++i) match(g->children[i], c->children[i], substitution);
    }
  }

  // --- instances -----------------------------------------------------------------------------

  std::string source_prefix(const Source& source) const { return &source == &user_ ? "user:" : "basis:"; }

  // What tells one function value from another in an instance's key.
  std::string function_key(const FunctionValue& function) const {
    switch (function.kind) {
      case FunctionValue::Kind::Definition: return source_prefix(*function.source) + function.name;
      case FunctionValue::Kind::Primitive: return "primitive:" + function.name;
      case FunctionValue::Kind::Constructor: return "constructor:" + function.name;
      case FunctionValue::Kind::Lambda: return function.closure->key;
    }
    return function.name;
  }

  std::string request(const FunctionDefinition& definition, const Source& source, const Type& type,
                      const std::vector<FunctionValue>& known = {}) {
    std::string key = source_prefix(source) + definition.name + ":" + print_type(type);
    for (const FunctionValue& function : known) key += " with " + function_key(function);
    auto found = instances_.find(key);
    if (found != instances_.end()) return found->second;
    if (static_cast<int>(instances_.size()) >= kInstanceLimit) {
      throw CompileError(definition.body->where, "expected at most " + std::to_string(kInstanceLimit) +
                                                     " function instances, found more while specializing " +
                                                     definition.name + " (endless polymorphic recursion?)");
    }
    std::string name = vcode_name(definition.name, ++instance_count_);
    instances_[key] = name;
    Pending pending{&definition, &source, {}, name, nullptr, {}, known};
    match(source.checked->function_types.at(definition.name), type, pending.substitution);
    pending_.push_back(std::move(pending));
    return name;
  }

  void collect_globals(const Expr& pattern, const GlobalBinding& binding) {
    if (pattern.kind == ExprKind::Variable) globals_[pattern.text] = &binding;
    if (pattern.kind == ExprKind::Pair) {
      for (const ExprPtr& child : pattern.children) collect_globals(*child, binding);
    }
    if (pattern.kind == ExprKind::Call) collect_globals(*pattern.children[1], binding);
  }

  // A top-level variable read inside a function: a function of no real argument that computes
  // the binding's value again (the value does not depend on where it is computed).
  core::ExprPtr global_read(const std::string& name, Type type) {
    std::string key = "global:" + name;
    auto found = instances_.find(key);
    std::string instance_name;
    if (found != instances_.end()) {
      instance_name = found->second;
    } else {
      instance_name = vcode_name(name, ++instance_count_);
      instances_[key] = instance_name;
      Pending pending{nullptr, &user_, {}, instance_name, globals_.at(name), name};
      pending_.push_back(std::move(pending));
    }
    auto call = core::make(core::Kind::Call, std::move(type));
    call->name = instance_name;
    call->children = {constant(BaseType::Int, "0")};
    return call;
  }

  core::Function global_instance(const Pending& pending) {
    source_ = &user_;
    Substitution none;
    substitution_ = &none;
    locals_.clear();
    core::Function function;
    function.name = pending.name;
    function.parameter = unused_parameter();
    std::vector<std::pair<core::PatternPtr, core::ExprPtr>> lets;
    bind(*pending.global->pattern, *pending.global->value, lets);
    const auto& [bound, value] = lets.at(0);  // the variable read is data, so something is left
    Type type = variable_type(*bound, pending.global_variable);
    function.result = type;
    function.body = let(bound, value, variable(pending.global_variable, type));
    substitution_ = nullptr;
    return function;
  }

  static core::PatternPtr unused_parameter() {
    auto parameter = std::make_shared<core::Pattern>();
    parameter->name = "unused_";
    parameter->type = make_base(BaseType::Int);
    return parameter;
  }

  static Type variable_type(const core::Pattern& pattern, const std::string& name) {
    if (pattern.kind == core::Pattern::Kind::Variable) return pattern.name == name ? pattern.type : nullptr;
    for (const auto& child : pattern.children) {
      if (Type found = variable_type(*child, name)) return found;
    }
    return nullptr;
  }

  core::Function instance(const Pending& pending) {
    if (pending.global) return global_instance(pending);
    source_ = pending.source;
    substitution_ = &pending.substitution;
    locals_.clear();
    core::Function function;
    function.name = pending.name;
    Type type = resolve(concrete(source_->checked->function_types.at(pending.definition->name), *substitution_));
    std::deque<FunctionValue> known(pending.known.begin(), pending.known.end());
    function.parameter = pattern(*pending.definition->arguments, &known);
    // Only functions: the instance still takes one (unused) argument, as a binding's does.
    if (!function.parameter) function.parameter = unused_parameter();
    function.result = type->children[1];
    function.body = expr(*pending.definition->body);
    return function;
  }

  core::ExprPtr main_body(bool fresh_streams) {
    source_ = &user_;
    Substitution none;
    substitution_ = &none;
    locals_.clear();
    auto restart_stream = [&](std::vector<std::pair<core::PatternPtr, core::ExprPtr>>& lets) {
      core::ExprPtr seeded = primitive("rand_seed", constant(BaseType::Int, "1"), make_base(BaseType::Bool));
      core::PatternPtr ignored;
      fresh_variable_pattern(seeded, ignored);
      lets.emplace_back(ignored, seeded);
    };
    std::vector<const TopLevelForm*> bindings, expressions;
    for (const TopLevelForm& form : user_.program->forms) {
      if (form.kind == TopLevelForm::Kind::Binding) bindings.push_back(&form);
      if (form.kind == TopLevelForm::Kind::Expression) expressions.push_back(&form);
    }
    if (expressions.empty()) throw CompileError({}, "expected at least one top-level expression, found none");
    // Bindings first, each in scope for the ones after it, then the expressions' tuple.
    std::vector<std::pair<core::PatternPtr, core::ExprPtr>> lets;
    for (const TopLevelForm* form : bindings) {
      if (fresh_streams) restart_stream(lets);
      bind(*form->binding.pattern, *form->binding.value, lets);
    }
    if (fresh_streams) restart_stream(lets);
    core::ExprPtr body = expr(*expressions.back()->expression.value);
    for (std::size_t i = expressions.size() - 1; i-- > 0;) {
      core::ExprPtr left = expr(*expressions[i]->expression.value);
      body = pair(left, body);
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = let(it->first, it->second, body);
    return body;
  }

  // --- expressions ---------------------------------------------------------------------------

  Type type_of(const Expr& e) const {
    auto found = source_->checked->expression_types.find(&e);
    if (found == source_->checked->expression_types.end()) {
      throw CompileError(e.where, "internal error: an expression without a recorded type");
    }
    return concrete(found->second, *substitution_);
  }

  static core::ExprPtr pair(core::ExprPtr left, core::ExprPtr right) {
    auto e = core::make(core::Kind::Pair, make_pair(left->type, right->type));
    e->children = {std::move(left), std::move(right)};
    return e;
  }

  static core::ExprPtr let(core::PatternPtr bound, core::ExprPtr value, core::ExprPtr body) {
    auto e = core::make(core::Kind::Let, body->type);
    e->pattern = std::move(bound);
    e->children = {std::move(value), std::move(body)};
    return e;
  }

  static core::ExprPtr constant(BaseType base, std::string text) {
    auto e = core::make(core::Kind::Constant, make_base(base));
    e->text = std::move(text);
    return e;
  }

  static core::ExprPtr variable(const std::string& name, Type type) {
    auto e = core::make(core::Kind::Variable, std::move(type));
    e->name = name;
    return e;
  }

  static core::ExprPtr primitive(const std::string& name, core::ExprPtr argument, Type type) {
    auto e = core::make(core::Kind::Primitive, std::move(type));
    e->name = name;
    e->children = {std::move(argument)};
    return e;
  }

  core::ExprPtr fresh_variable_pattern(core::ExprPtr value, core::PatternPtr& bound) {
    bound = std::make_shared<core::Pattern>();
    bound->name = "tmp" + std::to_string(++temporaries_) + "_";
    bound->type = value->type;
    return variable(bound->name, value->type);
  }

  // The pattern's variables come into scope; a function-valued one is bound to the next of
  // `known` and leaves the runtime pattern, which is null when nothing is left of it.
  core::PatternPtr pattern(const Expr& p, std::deque<FunctionValue>* known = nullptr) {
    switch (p.kind) {
      case ExprKind::Variable: {
        Type type = type_of(p);
        if (holds_function(type)) {
          if (resolve(type)->kind != TypeNode::Kind::Function) {
            throw CompileError(p.where, "not supported: binding " + p.text + " to a value of type " +
                                            print_type(type) + ", which holds a function");
          }
          if (!known || known->empty()) {
            throw CompileError(p.where, "internal error: no function known for " + p.text);
          }
          FunctionValue function = known->front();
          known->pop_front();
          core::PatternPtr bound;
          // A function expression's environment comes with it, into a variable of its own.
          if (function.environment) function.environment = fresh_variable_pattern(function.environment, bound);
          locals_.push_back({p.text, std::move(function)});
          return bound;
        }
        auto bound = std::make_shared<core::Pattern>();
        bound->name = p.text;
        bound->type = type;
        locals_.push_back({p.text, std::nullopt, type});
        return bound;
      }
      case ExprKind::Pair: {
        core::PatternPtr left = pattern(*p.children[0], known);
        core::PatternPtr right = pattern(*p.children[1], known);
        if (!left || !right) return left ? left : right;
        auto bound = std::make_shared<core::Pattern>();
        bound->kind = core::Pattern::Kind::Pair;
        bound->children = {left, right};
        bound->type = make_pair(left->type, right->type);
        return bound;
      }
      case ExprKind::Call: return pattern(*p.children[1], known);  // a datatype is its fields
      default: throw CompileError(p.where, "expected a pattern, found an expression");
    }
  }

  // `pattern = value` as a let: the functions in the value are bound when compiling, and the
  // rest, if any, is a let around what follows.
  void bind(const Expr& bound_pattern, const Expr& value_syntax,
            std::vector<std::pair<core::PatternPtr, core::ExprPtr>>& lets) {
    std::vector<FunctionValue> functions;
    core::ExprPtr value = split(value_syntax, functions);
    std::deque<FunctionValue> known(functions.begin(), functions.end());
    core::PatternPtr bound = pattern(bound_pattern, &known);
    if (!bound != !value) throw CompileError(bound_pattern.where, "internal error: a pattern and its value disagree");
    if (value) lets.emplace_back(bound, value);
  }

  const Local* find_local(const std::string& name) const {
    for (auto local = locals_.rbegin(); local != locals_.rend(); ++local) {
      if (local->name == name) return &*local;
    }
    return nullptr;
  }

  bool is_local(const std::string& name) const { return find_local(name) != nullptr; }

  // --- function values -----------------------------------------------------------------------

  // The value of an expression of a type that holds functions: the functions, left to right, go
  // to `known`, and what is left is returned (null when nothing is). Only a function, or a tuple
  // written out, can be taken apart so.
  core::ExprPtr split(const Expr& e, std::vector<FunctionValue>& known) {
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
  FunctionValue function_value(const Expr& e) {
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
  FunctionValue named_function(const std::string& name, Location where) {
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
  bool binds_function(const std::string& name) const {
    const Expr* bound = pattern_variable(*globals_.at(name)->pattern, name);
    auto found = user_.checked->expression_types.find(bound);
    return found != user_.checked->expression_types.end() && resolve(found->second)->kind == TypeNode::Kind::Function;
  }

  static const Expr* pattern_variable(const Expr& pattern, const std::string& name) {
    if (pattern.kind == ExprKind::Variable) return pattern.text == name ? &pattern : nullptr;
    if (pattern.kind == ExprKind::Call) return pattern_variable(*pattern.children[1], name);
    for (const ExprPtr& child : pattern.children) {
      if (const Expr* found = pattern_variable(*child, name)) return found;
    }
    return nullptr;
  }

  // A top-level binding whose value is a function, read in a function: the same function,
  // found from the binding's expression in the top level's scope.
  FunctionValue global_function(const std::string& name, Location where) {
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
  FunctionValue closure(const Expr& lambda) {
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
  core::ExprPtr inline_lambda(const FunctionValue& function, core::ExprPtr argument,
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
  core::ExprPtr apply(const FunctionValue& function, const Type& instance, core::ExprPtr argument,
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

  // The built-ins specialize writes out at the argument's type (name, eql), and the writes whose
  // elements hold sequences, which take the general versions basis.nesl writes; the rest are
  // flatten's primitives.
  static const std::set<std::string>& unrolled_builtins() {
    static const std::set<std::string> names = {"name", "eql", "hash_value", "identity"};
    return names;
  }

  core::ExprPtr builtin(const std::string& name, core::ExprPtr argument, Type result) {
    if (name == "name") {
      static const std::map<BaseType, std::string> by_sorting = {{BaseType::Int, "sorted_name"},
                                                                 {BaseType::Float, "sorted_name"},
                                                                 {BaseType::Char, "char_name"},
                                                                 {BaseType::Bool, "bool_name"}};
      Type element = resolve(resolve(argument->type)->children[0]);
      std::string version = element->kind == TypeNode::Kind::Base   ? by_sorting.at(element->base)
                            : element->kind == TypeNode::Kind::Pair ? "pair_name"
                                                                    : "general_name";
      return library_call(version, std::move(argument), std::move(result));
    }
    if (name == "identity") {
      // The argument is still computed (it may print or fail); its value is not needed.
      Type type = argument->type;
      core::PatternPtr ignored;
      fresh_variable_pattern(argument, ignored);
      return let(ignored, std::move(argument), identity_of(type));
    }
    if (name == "hash_value") {
      Type hashed = argument->type;
      return hash_of(std::move(argument), hashed);
    }
    if (name == "eql") {
      Type arguments = argument->type;
      Type compared = resolve(arguments)->children[0];
      return with_parts(std::move(argument), arguments, [&](core::ExprPtr left, core::ExprPtr right) {
        return equal_of(left, right, compared);
      });
    }
    static const std::map<std::string, std::string> general_writes = {{"<-", "general_write"},
                                                                      {"rep", "general_rep"},
                                                                      {"cond_put", "general_cond_put"},
                                                                      {"fpermute_hack", "general_cond_put"}};
    auto general = general_writes.find(name);
    if (general != general_writes.end() && needs_general_write(name, result)) {
      return library_call(general->second, std::move(argument), std::move(result));
    }
    return primitive(name, std::move(argument), std::move(result));
  }

  // A call of a named function (an operator's): see named_function.
  core::ExprPtr call(const std::string& name, const Type& instance, core::ExprPtr argument, Type result,
                     Location where) {
    return apply(named_function(name, where), instance, std::move(argument), {}, std::move(result), where);
  }

  // The core of `e`; the nodes made for it are located at `e` (those of its subexpressions
  // already are at theirs).
  core::ExprPtr expr(const Expr& e) {
    core::ExprPtr result = translate(e);
    if (e.where.file) locate(*result, e.where);
    return result;
  }

  static void locate(core::Expr& e, const Location& where) {
    if (e.where.file) return;
    e.where = where;
    for (const core::ExprPtr& child : e.children) locate(*child, where);
    for (const core::Generator& generator : e.generators) locate(*generator.sequence, where);
  }

  core::ExprPtr translate(const Expr& e) {
    const auto& c = e.children;
    if (records_function(e)) function_out_of_place(e);
    switch (e.kind) {
      case ExprKind::Integer: return constant(BaseType::Int, e.text);
      case ExprKind::Float: return constant(BaseType::Float, e.text);
      case ExprKind::Character:
        return constant(BaseType::Char, std::to_string(static_cast<unsigned char>(e.text[0])));
      case ExprKind::String: {
        Type type = make_sequence(make_base(BaseType::Char));
        if (e.text.empty()) return core::make(core::Kind::Empty, type);
        auto sequence = core::make(core::Kind::Sequence, type);
        for (char ch : e.text) {
          sequence->children.push_back(constant(BaseType::Char, std::to_string(static_cast<unsigned char>(ch))));
        }
        return sequence;
      }
      case ExprKind::Variable: {
        if (is_local(e.text)) return variable(e.text, type_of(e));
        if (source_ == &user_ && globals_.count(e.text)) return global_read(e.text, type_of(e));
        if ((e.text == "t" || e.text == "f") && !source_->functions.count(e.text)) {
          return constant(BaseType::Bool, e.text == "t" ? "T" : "F");
        }
        const Primitive* p = find_primitive(e.text);
        if (p && p->kind == PrimitiveKind::Constant && !source_->functions.count(e.text)) {
          return primitive(e.text, constant(BaseType::Int, "0"), type_of(e));
        }
        throw CompileError(e.where, "internal error: the unknown name " + e.text);
      }
      case ExprKind::Pair: {
        core::ExprPtr left = expr(*c[0]);
        return pair(left, expr(*c[1]));
      }
      case ExprKind::Call: {
        if (c[0]->kind == ExprKind::Variable && c[0]->text == "time" && !is_local("time") &&
            !source_->functions.count("time")) {
          return timed(e);
        }
        FunctionValue callee = c[0]->kind == ExprKind::Variable ? named_function(c[0]->text, c[0]->where)
                                                                 : function_value(*c[0]);
        std::vector<FunctionValue> known;
        core::ExprPtr argument = split(*c[1], known);
        return apply(callee, type_of(*c[0]), std::move(argument), known, type_of(e), e.where);
      }
      case ExprKind::Binary:
      case ExprKind::Unary: {
        std::string name = e.text;
        if (e.kind == ExprKind::Unary && name == "-") name = "negate";
        auto found = source_->checked->operator_instances.find(&e);
        if (found == source_->checked->operator_instances.end()) {
          throw CompileError(e.where, "internal error: an operator without a recorded instance");
        }
        Type instance = concrete(found->second, *substitution_);
        core::ExprPtr argument = expr(*c[0]);
        if (e.kind == ExprKind::Unary && name == "@") return string_of(argument, resolve(instance)->children[0]);
        if (e.kind == ExprKind::Binary) argument = pair(argument, expr(*c[1]));
        return call(name, instance, argument, type_of(e), e.where);
      }
      case ExprKind::Index: {
        core::ExprPtr sequence = expr(*c[0]);
        return primitive("elt", pair(sequence, expr(*c[1])), type_of(e));
      }
      case ExprKind::If: {
        auto result = core::make(core::Kind::If, type_of(e));
        core::ExprPtr condition = expr(*c[0]);
        core::ExprPtr then_branch = expr(*c[1]);
        result->children = {condition, then_branch, expr(*c[2])};
        return result;
      }
      case ExprKind::Let: {
        std::size_t mark = locals_.size();
        std::vector<std::pair<core::PatternPtr, core::ExprPtr>> lets;
        for (const Binding& binding : e.bindings) bind(*binding.pattern, *binding.value, lets);
        core::ExprPtr body = expr(*c[0]);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = let(it->first, it->second, body);
        locals_.resize(mark);
        return body;
      }
      case ExprKind::Over: return over(e);
      case ExprKind::Sequence: {
        auto sequence = core::make(core::Kind::Sequence, type_of(e));
        for (const ExprPtr& element : c) sequence->children.push_back(expr(*element));
        return sequence;
      }
      case ExprKind::Empty: return core::make(core::Kind::Empty, type_of(e));
      case ExprKind::Range: {
        core::ExprPtr start = expr(*c[0]);
        core::ExprPtr end = expr(*c[1]);
        core::ExprPtr stride = c.size() > 2 && c[2] ? expr(*c[2]) : constant(BaseType::Int, "1");
        return primitive("range", pair(start, pair(end, stride)), type_of(e));
      }
      case ExprKind::Lambda: break;  // a function value: function_out_of_place refused it above
    }
    throw CompileError(e.where, "internal error: unknown expression");
  }

  // Whether the checker gave e a type that holds a function (a tuple pattern used as a body has
  // no type of its own).
  bool records_function(const Expr& e) const {
    auto found = source_->checked->expression_types.find(&e);
    return found != source_->checked->expression_types.end() && holds_function(concrete(found->second, *substitution_));
  }

  // An expression whose value is or holds a function where only data can go: in a sequence, an
  // if's branch, a function's result, a program's result.
  [[noreturn]] void function_out_of_place(const Expr& e) {
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

  static bool contains_sequence(const Type& type) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Sequence) return true;
    if (t->kind == TypeNode::Kind::Pair) return contains_sequence(t->children[0]) || contains_sequence(t->children[1]);
    return false;
  }

  // Whether a write's result, of type [a], needs the general version: `<-` and rep scatter each
  // leaf of a base type or a tuple of them; cond_put and fpermute_hack only base types.
  static bool needs_general_write(const std::string& name, const Type& result) {
    Type element = resolve(resolve(result)->children[0]);
    if (name == "<-" || name == "rep") return contains_sequence(element);
    return element->kind != TypeNode::Kind::Base;
  }

  // --- eql: the classic's typecase on the arguments' type, unrolled at the concrete type ---------

  // eql(a, b): == on numbers and characters, not-xor on booleans, componentwise on tuples, and
  // on sequences equal lengths and then every pair of elements equal.
  core::ExprPtr equal_of(core::ExprPtr left, core::ExprPtr right, const Type& type) {
    Type t = resolve(type);
    Type boolean = make_base(BaseType::Bool);
    switch (t->kind) {
      case TypeNode::Kind::Base:
        if (t->base == BaseType::Bool) {
          return primitive("not", primitive("xor", pair(std::move(left), std::move(right)), boolean), boolean);
        }
        return primitive("==", pair(std::move(left), std::move(right)), boolean);
      case TypeNode::Kind::Pair:
        return with_parts(std::move(left), t, [&](core::ExprPtr l1, core::ExprPtr l2) {
          return with_parts(std::move(right), t, [&](core::ExprPtr r1, core::ExprPtr r2) {
            return primitive("and", pair(equal_of(l1, r1, t->children[0]), equal_of(l2, r2, t->children[1])),
                             boolean);
          });
        });
      case TypeNode::Kind::Sequence: {
        core::ExprPtr both = pair(std::move(left), std::move(right));
        Type both_type = both->type;
        return with_parts(std::move(both), both_type, [&](core::ExprPtr l, core::ExprPtr r) {
          Type integer = make_base(BaseType::Int);
          core::ExprPtr same_length = primitive(
              "==", pair(primitive("#", l, integer), primitive("#", variable(r->name, r->type), integer)), boolean);
          auto each = core::make(core::Kind::Over, make_sequence(boolean));
          core::PatternPtr x, y;
          core::ExprPtr x_use = fresh_variable(t->children[0], x);
          core::ExprPtr y_use = fresh_variable(t->children[0], y);
          each->generators.push_back({x, variable(l->name, l->type)});
          each->generators.push_back({y, r});
          each->children = {equal_of(x_use, y_use, t->children[0])};
          auto choice = core::make(core::Kind::If, boolean);
          choice->children = {same_length, primitive("all", each, boolean), constant(BaseType::Bool, "F")};
          return choice;
        });
      }
      default: throw CompileError({}, "not supported yet: eql of a value of type " + print_type(t));
    }
  }

  // The classic's identity of a type: 0, 0.0, the null character, f, the empty sequence, and a
  // tuple of its parts' identities.
  core::ExprPtr identity_of(const Type& type) {
    Type t = resolve(type);
    switch (t->kind) {
      case TypeNode::Kind::Base:
        switch (t->base) {
          case BaseType::Int: return constant(BaseType::Int, "0");
          case BaseType::Float: return constant(BaseType::Float, "0.0");
          case BaseType::Char: return constant(BaseType::Char, "0");
          case BaseType::Bool: return constant(BaseType::Bool, "F");
        }
        break;
      case TypeNode::Kind::Pair: return pair(identity_of(t->children[0]), identity_of(t->children[1]));
      case TypeNode::Kind::Sequence: return core::make(core::Kind::Empty, t);
      default: break;
    }
    throw CompileError({}, "not supported yet: identity of a value of type " + print_type(t));
  }

  // The classic's hash before its reduction to a range: a typecase on the value's type, unrolled
  // here at the concrete type; ints wrap as the VM's do.
  core::ExprPtr hash_of(core::ExprPtr value, const Type& type) {
    Type t = resolve(type);
    Type integer = make_base(BaseType::Int);
    switch (t->kind) {
      case TypeNode::Kind::Base:
        switch (t->base) {
          case BaseType::Int: return value;
          case BaseType::Bool: return primitive("btoi", std::move(value), integer);
          case BaseType::Char: return primitive("char_code", std::move(value), integer);
          case BaseType::Float: return library_call("float_hash", std::move(value), integer);
        }
        break;
      case TypeNode::Kind::Pair:
        return with_parts(std::move(value), t, [&](core::ExprPtr left, core::ExprPtr right) {
          core::ExprPtr scaled =
              primitive("*", pair(constant(BaseType::Int, "991892311"), hash_of(right, t->children[1])), integer);
          return primitive("+", pair(hash_of(left, t->children[0]), scaled), integer);
        });
      case TypeNode::Kind::Sequence: return library_call("sequence_hash", std::move(value), integer);
      default: break;
    }
    throw CompileError({}, "not supported yet: hash of a value of type " + print_type(t));
  }

  // --- `@`: the classic's typecase on the argument's type, unrolled at the concrete type ----------

  static Type string_type() { return make_sequence(make_base(BaseType::Char)); }

  core::ExprPtr library_call(const std::string& name, core::ExprPtr argument, Type result) {
    auto e = core::make(core::Kind::Call, result);
    e->name = request(*library_.functions.at(name), library_, make_function(argument->type, result));
    e->children = {std::move(argument)};
    return e;
  }

  static core::ExprPtr string_constant(const std::string& text) {
    if (text.empty()) return core::make(core::Kind::Empty, string_type());
    auto sequence = core::make(core::Kind::Sequence, string_type());
    for (char ch : text) {
      sequence->children.push_back(constant(BaseType::Char, std::to_string(static_cast<unsigned char>(ch))));
    }
    return sequence;
  }

  static core::ExprPtr append(core::ExprPtr left, core::ExprPtr right) {
    return primitive("++", pair(std::move(left), std::move(right)), string_type());
  }

  core::ExprPtr fresh_variable(const Type& type, core::PatternPtr& bound) {
    bound = std::make_shared<core::Pattern>();
    bound->name = "tmp" + std::to_string(++temporaries_) + "_";
    bound->type = type;
    return variable(bound->name, type);
  }

  // Binds the two parts of a pair value and makes the body from their names.
  template <typename Body>
  core::ExprPtr with_parts(core::ExprPtr value, const Type& type, Body body) {
    Type t = resolve(type);
    core::PatternPtr left, right;
    core::ExprPtr left_use = fresh_variable(t->children[0], left);
    core::ExprPtr right_use = fresh_variable(t->children[1], right);
    auto both = std::make_shared<core::Pattern>();
    both->kind = core::Pattern::Kind::Pair;
    both->children = {left, right};
    both->type = t;
    return let(both, std::move(value), body(left_use, right_use));
  }

  // @v: numbers, booleans and characters as basis.nesl writes them, a sequence as
  // [e1, e2, ...], a tuple as (a, b, c).
  core::ExprPtr string_of(core::ExprPtr value, const Type& type) {
    Type t = resolve(type);
    switch (t->kind) {
      case TypeNode::Kind::Base: {
        static const std::map<BaseType, std::string> writers = {{BaseType::Int, "int_string"},
                                                                 {BaseType::Float, "float_string"},
                                                                 {BaseType::Bool, "bool_string"},
                                                                 {BaseType::Char, "char_string"}};
        return library_call(writers.at(t->base), std::move(value), string_type());
      }
      case TypeNode::Kind::Sequence: {
        auto strings = core::make(core::Kind::Over, make_sequence(string_type()));
        core::PatternPtr element;
        core::ExprPtr use = fresh_variable(t->children[0], element);
        strings->generators.push_back({element, std::move(value)});
        strings->children = {string_of(use, t->children[0])};
        return library_call("vector_string", strings, string_type());
      }
      case TypeNode::Kind::Pair:
        return with_parts(std::move(value), t, [&](core::ExprPtr left, core::ExprPtr right) {
          return append(string_constant("("),
                        append(string_of(left, t->children[0]),
                               append(string_constant(", "),
                                      append(tuple_rest_string(right, t->children[1]), string_constant(")")))));
        });
      default: throw CompileError({}, "not supported yet: @ of a value of type " + print_type(t));
    }
  }

  // The second part of a tuple without its parentheses, as the classic's string_noparen: only
  // one level, whose own second part is written whole, so (a, b, c, d) is "(a, b, (c, d))".
  core::ExprPtr tuple_rest_string(core::ExprPtr value, const Type& type) {
    Type t = resolve(type);
    if (t->kind != TypeNode::Kind::Pair) return string_of(std::move(value), t);
    return with_parts(std::move(value), t, [&](core::ExprPtr left, core::ExprPtr right) {
      return append(string_of(left, t->children[0]),
                    append(string_constant(", "), string_of(right, t->children[1])));
    });
  }

  // time(e) is (e, seconds): the clock starts before e is evaluated and stops after.
  core::ExprPtr timed(const Expr& e) {
    Type result = type_of(e);
    core::ExprPtr started = primitive("start_timer", constant(BaseType::Int, "0"), make_base(BaseType::Int));
    core::PatternPtr start_pattern;
    fresh_variable_pattern(started, start_pattern);
    core::ExprPtr value = expr(*e.children[1]);
    core::PatternPtr value_pattern;
    core::ExprPtr value_use = fresh_variable_pattern(value, value_pattern);
    core::ExprPtr seconds = primitive("stop_timer", value_use, make_base(BaseType::Float));
    core::PatternPtr seconds_pattern;
    core::ExprPtr seconds_use = fresh_variable_pattern(seconds, seconds_pattern);
    core::ExprPtr body = pair(value_use, seconds_use);
    body = let(seconds_pattern, seconds, body);
    body = let(value_pattern, value, body);
    return let(start_pattern, started, body);
  }

  // Every name a variable of e spells, wherever it is (a conservative superset of the free ones).
  static void collect_names(const Expr& e, std::set<std::string>& names) {
    if (e.kind == ExprKind::Variable) names.insert(e.text);
    for (const ExprPtr& child : e.children) {
      if (child) collect_names(*child, names);
    }
    for (const Binding& binding : e.bindings) {
      if (binding.pattern) collect_names(*binding.pattern, names);
      if (binding.value) collect_names(*binding.value, names);
    }
  }

  // {body : p1 in s1; ... | filter}. The sequences are evaluated first, in order; a filter
  // computes its flags over them and packs each before the body runs over what is left.
  core::ExprPtr over(const Expr& e) {
    std::vector<std::pair<core::PatternPtr, core::ExprPtr>> lets;
    std::vector<core::ExprPtr> sequences;
    for (const Binding& generator : e.bindings) {
      core::ExprPtr value = expr(*generator.value);
      core::PatternPtr bound;
      sequences.push_back(fresh_variable_pattern(value, bound));
      lets.emplace_back(bound, value);
    }
    // inputs[i] is bound to the pattern of generator which[i].
    auto build = [&](const Expr& body_syntax, const std::vector<core::ExprPtr>& inputs,
                     const std::vector<std::size_t>& which) {
      std::size_t mark = locals_.size();
      auto result = core::make(core::Kind::Over, {});
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        result->generators.push_back({pattern(*e.bindings[which[i]].pattern), inputs[i]});
      }
      result->children = {expr(body_syntax)};
      result->type = make_sequence(result->children[0]->type);
      locals_.resize(mark);
      return result;
    };
    const Expr& body = e.children[0] ? *e.children[0] : *e.bindings[0].pattern;
    core::ExprPtr result;
    std::vector<std::size_t> all(sequences.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    if (e.children.size() > 1 && e.children[1]) {
      core::ExprPtr flags_value = build(*e.children[1], sequences, all);
      core::PatternPtr flags_pattern;
      core::ExprPtr flags = fresh_variable_pattern(flags_value, flags_pattern);
      lets.emplace_back(flags_pattern, flags_value);
      // Only the generators whose variables the body names are packed (one at least, for the
      // length): the others were needed by the filter alone.
      std::set<std::string> body_names;
      collect_names(body, body_names);
      std::vector<std::size_t> kept;
      for (std::size_t i = 0; i < sequences.size(); ++i) {
        std::set<std::string> bound_names;
        collect_names(*e.bindings[i].pattern, bound_names);
        bool used = false;
        for (const std::string& name : bound_names) used = used || body_names.count(name) > 0;
        if (used) kept.push_back(i);
      }
      if (kept.empty()) kept.push_back(0);
      std::vector<core::ExprPtr> packed;
      for (std::size_t i : kept) {
        const core::ExprPtr& sequence = sequences[i];
        core::ExprPtr value = primitive("pack_flags", pair(sequence, flags), sequence->type);
        core::PatternPtr bound;
        packed.push_back(fresh_variable_pattern(value, bound));
        lets.emplace_back(bound, value);
      }
      result = build(body, packed, kept);
    } else {
      result = build(body, sequences, all);
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) result = let(it->first, it->second, result);
    return result;
  }

  Source user_;
  Source library_;
  std::set<std::string> datatypes_;
  std::map<std::string, const GlobalBinding*> globals_;
  std::map<std::string, std::string> instances_;
  std::deque<Pending> pending_;
  int instance_count_ = 0;
  int temporaries_ = 0;
  const Source* source_ = nullptr;
  const Substitution* substitution_ = nullptr;
  std::vector<Local> locals_;
  std::set<std::string> resolving_globals_;
};

}  // namespace

core::Program specialize(const Program& program, const CheckedProgram& checked, const Library& library) {
  return Specializer(program, checked, library).run();
}

}  // namespace nesl
