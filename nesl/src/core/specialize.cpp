#include "nesl/specialize.hpp"

#include <cctype>

#include "core/specializer.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::specializing {

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

Specializer::Specializer(const Program& program, const CheckedProgram& checked, const Library& library)
    : user_{&program, &checked, {}}, library_{library.program.get(), &library.checked, {}} {
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

core::Program Specializer::run() {
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

void Specializer::drain(core::Program& result) {
  while (!pending_.empty()) {
    Pending next = std::move(pending_.front());
    pending_.pop_front();
    result.functions.push_back(instance(next));
  }
}

bool Specializer::has_bindings() const {
  for (const TopLevelForm& form : user_.program->forms) {
    if (form.kind == TopLevelForm::Kind::Binding) return true;
  }
  return false;
}

bool Specializer::uses_primitive(const core::Expr& e, const std::string& name) {
  if (e.kind == core::Kind::Primitive && e.name == name) return true;
  for (const core::ExprPtr& child : e.children) {
    if (uses_primitive(*child, name)) return true;
  }
  for (const core::Generator& g : e.generators) {
    if (uses_primitive(*g.sequence, name)) return true;
  }
  return false;
}

bool Specializer::uses_primitive(const core::Program& program, const std::string& name) {
  if (uses_primitive(*program.main, name)) return true;
  for (const core::Function& f : program.functions) {
    if (uses_primitive(*f.body, name)) return true;
  }
  return false;
}

// The concrete type: variables by the substitution (unconstrained ones are int: nothing
// observable depends on them), datatypes by their fields.
Type Specializer::concrete(const Type& type, const Substitution& substitution) const {
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

Type Specializer::constructor_of(const std::string& name) const {
  for (const Source* source : {&user_, &library_}) {
    auto found = source->checked->datatype_constructors.find(name);
    if (found != source->checked->datatype_constructors.end()) return found->second;
  }
  throw CompileError({}, "internal error: unknown datatype " + name);
}

// Extends the substitution so that the generic type becomes the concrete one.
void Specializer::match(const Type& generic, const Type& concrete_type, Substitution& substitution) const {
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

// What tells one function value from another in an instance's key.
std::string Specializer::function_key(const FunctionValue& function) const {
  switch (function.kind) {
    case FunctionValue::Kind::Definition: return source_prefix(*function.source) + function.name;
    case FunctionValue::Kind::Primitive: return "primitive:" + function.name;
    case FunctionValue::Kind::Constructor: return "constructor:" + function.name;
    case FunctionValue::Kind::Lambda: return function.closure->key;
  }
  return function.name;
}

std::string Specializer::request(const FunctionDefinition& definition, const Source& source, const Type& type,
                                 const std::vector<FunctionValue>& known) {
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

void Specializer::collect_globals(const Expr& pattern, const GlobalBinding& binding) {
  if (pattern.kind == ExprKind::Variable) globals_[pattern.text] = &binding;
  if (pattern.kind == ExprKind::Pair) {
    for (const ExprPtr& child : pattern.children) collect_globals(*child, binding);
  }
  if (pattern.kind == ExprKind::Call) collect_globals(*pattern.children[1], binding);
}

// A top-level variable read inside a function: a function of no real argument that computes
// the binding's value again (the value does not depend on where it is computed).
core::ExprPtr Specializer::global_read(const std::string& name, Type type) {
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

core::Function Specializer::global_instance(const Pending& pending) {
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

core::PatternPtr Specializer::unused_parameter() {
  auto parameter = std::make_shared<core::Pattern>();
  parameter->name = "unused_";
  parameter->type = make_base(BaseType::Int);
  return parameter;
}

Type Specializer::variable_type(const core::Pattern& pattern, const std::string& name) {
  if (pattern.kind == core::Pattern::Kind::Variable) return pattern.name == name ? pattern.type : nullptr;
  for (const auto& child : pattern.children) {
    if (Type found = variable_type(*child, name)) return found;
  }
  return nullptr;
}

core::Function Specializer::instance(const Pending& pending) {
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

core::ExprPtr Specializer::main_body(bool fresh_streams) {
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

}  // namespace nesl::specializing

namespace nesl {

core::Program specialize(const Program& program, const CheckedProgram& checked, const Library& library) {
  return specializing::Specializer(program, checked, library).run();
}

}  // namespace nesl
