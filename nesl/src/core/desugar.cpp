#include "core/specializer.hpp"

#include <algorithm>

#include "nesl/diagnostics.hpp"
#include "nesl/primitives.hpp"

namespace nesl::specializing {

Type Specializer::type_of(const Expr& e) const {
  auto found = source_->checked->expression_types.find(&e);
  if (found == source_->checked->expression_types.end()) {
    throw CompileError(e.where, "internal error: an expression without a recorded type");
  }
  return concrete(found->second, *substitution_);
}

core::ExprPtr Specializer::pair(core::ExprPtr left, core::ExprPtr right) {
  auto e = core::make(core::Kind::Pair, make_pair(left->type, right->type));
  e->children = {std::move(left), std::move(right)};
  return e;
}

core::ExprPtr Specializer::let(core::PatternPtr bound, core::ExprPtr value, core::ExprPtr body) {
  auto e = core::make(core::Kind::Let, body->type);
  e->pattern = std::move(bound);
  e->children = {std::move(value), std::move(body)};
  return e;
}

core::ExprPtr Specializer::constant(BaseType base, std::string text) {
  auto e = core::make(core::Kind::Constant, make_base(base));
  e->text = std::move(text);
  return e;
}

core::ExprPtr Specializer::variable(const std::string& name, Type type) {
  auto e = core::make(core::Kind::Variable, std::move(type));
  e->name = name;
  return e;
}

core::ExprPtr Specializer::primitive(const std::string& name, core::ExprPtr argument, Type type) {
  auto e = core::make(core::Kind::Primitive, std::move(type));
  e->name = name;
  e->children = {std::move(argument)};
  return e;
}

core::ExprPtr Specializer::fresh_variable_pattern(core::ExprPtr value, core::PatternPtr& bound) {
  bound = std::make_shared<core::Pattern>();
  bound->name = "tmp" + std::to_string(++temporaries_) + "_";
  bound->type = value->type;
  return variable(bound->name, value->type);
}

// The pattern's variables come into scope; a function-valued one is bound to the next of
// `known` and leaves the runtime pattern, which is null when nothing is left of it.
core::PatternPtr Specializer::pattern(const Expr& p, std::deque<FunctionValue>* known) {
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
void Specializer::bind(const Expr& bound_pattern, const Expr& value_syntax,
                       std::vector<std::pair<core::PatternPtr, core::ExprPtr>>& lets) {
  std::vector<FunctionValue> functions;
  core::ExprPtr value = split(value_syntax, functions);
  std::deque<FunctionValue> known(functions.begin(), functions.end());
  core::PatternPtr bound = pattern(bound_pattern, &known);
  if (!bound != !value) throw CompileError(bound_pattern.where, "internal error: a pattern and its value disagree");
  if (value) lets.emplace_back(bound, value);
}

const Local* Specializer::find_local(const std::string& name) const {
  for (auto local = locals_.rbegin(); local != locals_.rend(); ++local) {
    if (local->name == name) return &*local;
  }
  return nullptr;
}

// The built-ins specialize writes out at the argument's type (name, eql), and the writes whose
// elements hold sequences, which take the general versions basis.nesl writes; the rest are
// flatten's primitives.
const std::set<std::string>& Specializer::unrolled_builtins() {
  static const std::set<std::string> names = {"name", "eql", "hash_value", "identity"};
  return names;
}

core::ExprPtr Specializer::builtin(const std::string& name, core::ExprPtr argument, Type result) {
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
core::ExprPtr Specializer::call(const std::string& name, const Type& instance, core::ExprPtr argument, Type result,
                                Location where) {
  return apply(named_function(name, where), instance, std::move(argument), {}, std::move(result), where);
}

// The core of `e`; the nodes made for it are located at `e` (those of its subexpressions
// already are at theirs).
core::ExprPtr Specializer::expr(const Expr& e) {
  core::ExprPtr result = translate(e);
  if (e.where.file) locate(*result, e.where);
  return result;
}

void Specializer::locate(core::Expr& e, const Location& where) {
  if (e.where.file) return;
  e.where = where;
  for (const core::ExprPtr& child : e.children) locate(*child, where);
  for (const core::Generator& generator : e.generators) locate(*generator.sequence, where);
}

core::ExprPtr Specializer::translate(const Expr& e) {
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

bool Specializer::contains_sequence(const Type& type) {
  Type t = resolve(type);
  if (t->kind == TypeNode::Kind::Sequence) return true;
  if (t->kind == TypeNode::Kind::Pair) return contains_sequence(t->children[0]) || contains_sequence(t->children[1]);
  return false;
}

// Whether a write's result, of type [a], needs the general version: `<-` and rep scatter each
// leaf of a base type or a tuple of them; cond_put and fpermute_hack only base types.
bool Specializer::needs_general_write(const std::string& name, const Type& result) {
  Type element = resolve(resolve(result)->children[0]);
  if (name == "<-" || name == "rep") return contains_sequence(element);
  return element->kind != TypeNode::Kind::Base;
}

// time(e) is (e, seconds): the clock starts before e is evaluated and stops after.
core::ExprPtr Specializer::timed(const Expr& e) {
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
void Specializer::collect_names(const Expr& e, std::set<std::string>& names) {
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
core::ExprPtr Specializer::over(const Expr& e) {
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

}  // namespace nesl::specializing
