#include "nesl/checker.hpp"

#include <cctype>
#include <map>
#include <set>

#include "nesl/diagnostics.hpp"
#include "nesl/printer.hpp"

namespace nesl {
namespace {

// Thrown by unify; the caller knows what was being matched and turns it into a CompileError.
struct UnifyFailure {};

TypeClass intersect(const TypeClass& a, const TypeClass& b) {
  if (a.any) return b;
  if (b.any) return a;
  return TypeClass{false, a.members & b.members};
}

bool occurs(const TypeNode* variable, const Type& type) {
  Type t = resolve(type);
  if (t.get() == variable) return true;
  for (const Type& child : t->children) {
    if (occurs(variable, child)) return true;
  }
  return false;
}

void unify(const Type& a, const Type& b);

void bind_variable(const Type& variable, const Type& other) {
  if (other->kind == TypeNode::Kind::Variable) {
    TypeClass both = intersect(variable->type_class, other->type_class);
    if (!both.any && both.members == 0) throw UnifyFailure{};
    // A class narrowed to one base type is that type: number and logical meet in int.
    for (auto [member, base] : {std::pair{TypeClass::kInt, BaseType::Int},
                                std::pair{TypeClass::kFloat, BaseType::Float},
                                std::pair{TypeClass::kChar, BaseType::Char},
                                std::pair{TypeClass::kBool, BaseType::Bool}}) {
      if (!both.any && both.members == member) {
        Type concrete = make_base(base);
        variable->bound_to = concrete;
        other->bound_to = concrete;
        return;
      }
    }
    other->type_class = both;
    variable->bound_to = other;
    return;
  }
  if (other->kind == TypeNode::Kind::Base) {
    if (!variable->type_class.admits(other->base)) throw UnifyFailure{};
  } else {
    if (!variable->type_class.any) throw UnifyFailure{};
    if (occurs(variable.get(), other)) throw UnifyFailure{};
  }
  variable->bound_to = other;
}

void unify(const Type& first, const Type& second) {
  Type a = resolve(first);
  Type b = resolve(second);
  if (a == b) return;
  if (a->kind == TypeNode::Kind::Variable) return bind_variable(a, b);
  if (b->kind == TypeNode::Kind::Variable) return bind_variable(b, a);
  if (a->kind != b->kind) throw UnifyFailure{};
  switch (a->kind) {
    case TypeNode::Kind::Base:
      if (a->base != b->base) throw UnifyFailure{};
      return;
    case TypeNode::Kind::Datatype:
      if (a->name != b->name || a->children.size() != b->children.size()) throw UnifyFailure{};
      break;
    default: break;
  }
  for (std::size_t i = 0; i < a->children.size(); ++i) unify(a->children[i], b->children[i]);
}

// A copy of the type with every unbound variable replaced by a fresh one of the same class:
// top-level definitions are generalized over all the variables they still have.
Type instantiate(const Type& type, std::map<const TypeNode*, Type>& fresh) {
  Type t = resolve(type);
  if (t->kind == TypeNode::Kind::Variable) {
    auto found = fresh.find(t.get());
    if (found != fresh.end()) return found->second;
    Type copy = make_variable(t->type_class);
    fresh[t.get()] = copy;
    return copy;
  }
  if (t->children.empty()) return t;
  auto copy = std::make_shared<TypeNode>(*t);
  for (Type& child : copy->children) child = instantiate(child, fresh);
  return copy;
}

Type instantiate(const Type& type) {
  std::map<const TypeNode*, Type> fresh;
  return instantiate(type, fresh);
}

int tuple_width(const Type& type) {
  Type t = resolve(type);
  return t->kind == TypeNode::Kind::Pair ? 1 + tuple_width(t->children[1]) : 1;
}

class Checker {
 public:
  Checker(const Basis& basis, const NamesOutside& outside) : basis_(basis), outside_(outside) {
    // The basis's one named type: the classic's file descriptor record, stream(int).
    Type stream = make_function(make_base(BaseType::Int), make_datatype("stream", {}));
    datatypes_["stream"] = Datatype{stream};
  }

  CheckedProgram run(const Program& program) {
    CheckedProgram checked;
    record_ = &checked;
    const DefinitionPlaces places(program.forms);
    places_ = &places;
    for (const auto& [name, type] : outside_.types) globals_[name] = type;
    for (form_ = 0; form_ < program.forms.size(); ++form_) {
      const TopLevelForm& form = program.forms[form_];
      switch (form.kind) {
        case TopLevelForm::Kind::Function: check_function(form, checked); break;
        case TopLevelForm::Kind::Datatype: check_datatype(form, checked); break;
        case TopLevelForm::Kind::Binding: check_binding(form, checked); break;
        case TopLevelForm::Kind::Expression: {
          locals_.clear();
          Type type = infer(*form.expression.value);
          checked.forms.push_back({"it", type, false});
          checked.expressions.push_back(type);
          break;
        }
        case TopLevelForm::Kind::Setting: break;
      }
    }
    for (const auto& [name, datatype] : datatypes_) checked.datatype_constructors[name] = datatype.constructor;
    record_ = nullptr;
    places_ = nullptr;
    return checked;
  }

 private:
  struct Datatype {
    Type constructor;  // (fields) -> name(parameters)
  };

  // --- type syntax to types ------------------------------------------------------------------

  // Names in type syntax: the base types, known datatypes, and otherwise type variables, with
  // the class the context gives them (any when it names none).
  Type convert(const TypeExpr& syntax, std::map<std::string, Type>& variables,
               const std::map<std::string, TypeClass>& classes, const std::string& defining) {
    const auto& c = syntax.children;
    switch (syntax.kind) {
      case TypeExpr::Kind::Sequence: return make_sequence(convert(*c[0], variables, classes, defining));
      case TypeExpr::Kind::Pair:
        return make_pair(convert(*c[0], variables, classes, defining),
                         convert(*c[1], variables, classes, defining));
      case TypeExpr::Kind::Function:
        return make_function(convert(*c[0], variables, classes, defining),
                             convert(*c[1], variables, classes, defining));
      case TypeExpr::Kind::Name: break;
    }
    const std::string& name = syntax.name;
    static const std::map<std::string, BaseType> bases = {
        {"int", BaseType::Int}, {"float", BaseType::Float}, {"bool", BaseType::Bool},
        {"char", BaseType::Char}};
    auto base = bases.find(name);
    if (base != bases.end()) {
      if (!c.empty()) throw CompileError(syntax.where, "expected no type parameters after " + name + ", found some");
      return make_base(base->second);
    }
    if (name == defining) {
      throw CompileError(syntax.where, "expected the fields of " + name +
                                           " to be other types, found " + name +
                                           " itself (recursive datatypes are not supported)");
    }
    auto datatype = datatypes_.find(name);
    if (datatype != datatypes_.end()) {
      Type instance = instantiate(datatype->second.constructor);
      Type result = resolve(instance->children[1]);
      if (result->children.size() != c.size()) {
        throw CompileError(syntax.where, "expected " + std::to_string(result->children.size()) +
                                             " type parameters for " + name + ", found " +
                                             std::to_string(c.size()));
      }
      for (std::size_t i = 0; i < c.size(); ++i) {
        try {
          unify(result->children[i], convert(*c[i], variables, classes, defining));
        } catch (const UnifyFailure&) {
          throw CompileError(c[i]->where, "type parameter of " + name + ": expected " +
                                              describe_type(result->children[i]) +
                                              ", found " + print_type_expression(*c[i]));
        }
      }
      return result;
    }
    if (!c.empty()) throw CompileError(syntax.where, "expected a datatype, found the unknown type " + name);
    auto known = variables.find(name);
    if (known != variables.end()) return known->second;
    auto type_class = classes.find(name);
    Type variable =
        make_variable(type_class != classes.end() ? type_class->second : TypeClass::any_type());
    variables[name] = variable;
    return variable;
  }

  std::map<std::string, TypeClass> context_classes(const std::vector<TypeContextEntry>& context) {
    std::map<std::string, TypeClass> classes;
    for (const TypeContextEntry& entry : context) {
      TypeClass type_class;
      if (!type_class_from_name(entry.type_class, type_class)) {
        throw CompileError(entry.where, "expected a type class (number, ordinal, logical or any), found '" +
                                            entry.type_class + "'");
      }
      classes[entry.variable] = type_class;
    }
    return classes;
  }

  Type convert_signature(const TypeSignature& signature, std::map<std::string, Type>& variables,
                         const std::string& defining = {}) {
    return convert(*signature.type, variables, context_classes(signature.context), defining);
  }

  // --- names ---------------------------------------------------------------------------------

  // The type of a name where it is used: locals (innermost first), then top-level definitions,
  // then the basis, then the boolean constants t and f.
  bool lookup(const std::string& name, Type& out) {
    for (auto local = locals_.rbegin(); local != locals_.rend(); ++local) {
      if (local->first == name) {
        out = local->second;
        return true;
      }
    }
    auto global = globals_.find(name);
    if (global != globals_.end()) {
      out = instantiate(global->second);
      return true;
    }
    auto cached = basis_types_.find(name);
    if (cached == basis_types_.end()) {
      auto signature = basis_.signatures.find(name);
      if (signature != basis_.signatures.end()) {
        std::map<std::string, Type> variables;
        cached = basis_types_.emplace(name, convert_signature(*signature->second, variables)).first;
      }
    }
    if (cached != basis_types_.end()) {
      out = instantiate(cached->second);
      return true;
    }
    if (name == "t" || name == "f") {
      out = make_base(BaseType::Bool);
      return true;
    }
    return false;
  }

  Type call(const Expr& expr) {
    const Expr& callee = *expr.children[0];
    const Expr& argument = *expr.children[1];
    if (callee.kind == ExprKind::Variable) {
      Type instance = lookup_or_fail(callee.text, callee.where);
      record_->expression_types[&callee] = instance;
      return apply(instance, argument, expr.where, callee.text);
    }
    return apply(infer(callee), argument, expr.where, "the called expression");
  }

  Type lookup_or_fail(const std::string& name, Location where) {
    Type type;
    if (!lookup(name, type)) {
      throw CompileError(where, "expected a defined name, found the unbound name '" + name + "'" + unbound_hint(name, where));
    }
    return type;
  }

  // What an unbound name may have meant, in parentheses after the message; empty for nothing.
  std::string unbound_hint(const std::string& name, Location where) const {
    const Location* later = places_ ? places_->after(form_, name) : nullptr;
    if (!later && outside_.defined_later) later = outside_.defined_later(name);
    if (later) {
      const bool same_file = later->file == where.file || !later->file;
      return " (it is defined later, at " + (same_file ? "line " : later->file->name() + ":") +
             std::to_string(later->line) +
             ": a name must be defined before the forms that use it, so two top-level functions cannot call each other)";
    }
    if (from_window_library(name)) {
      return " (the classic's X11 window and plotting library, which this implementation does not have)";
    }
    if (const std::string command = command_hint(name); !command.empty()) return " (" + command + ")";
    const std::string other = other_language_hint(name);
    if (!other.empty()) return " (" + other + ")";
    const std::string closest = closest_name(name, names_in_scope());
    return closest.empty() ? "" : " (did you mean '" + closest + "'?)";
  }

  // Every name a form could read here, the program's own first (innermost local first).
  std::vector<std::string> names_in_scope() const {
    std::vector<std::string> names;
    for (auto local = locals_.rbegin(); local != locals_.rend(); ++local) names.push_back(local->first);
    for (const auto& [name, type] : globals_) names.push_back(name);
    if (outside_.known) {
      for (std::string& name : outside_.known()) names.push_back(std::move(name));
    }
    for (const auto& [name, signature] : basis_.signatures) {
      if (!name.empty() && std::isalpha(static_cast<unsigned char>(name[0]))) names.push_back(name);
    }
    return names;
  }

  // The names of the classic's graphics library (window.nesl and its xps_ primitives), which
  // its demonstrations and some examples call.
  static bool from_window_library(const std::string& name) {
    static const std::set<std::string> names = {"display", "bounding_box", "make_window"};
    return name.starts_with("w_") || name.starts_with("xps_") || names.count(name) > 0;
  }

  // --- expressions ---------------------------------------------------------------------------

  // Unifies found with expected, or reports "WHAT: expected E, found F" at where; both types are
  // printed as they were before the attempt.
  static void expect(const Type& found, const Type& expected, Location where, const std::string& what) {
    std::string expected_text = describe_type(expected);
    std::string found_text = describe_type(found);
    try {
      unify(found, expected);
    } catch (const UnifyFailure&) {
      throw CompileError(where, what + ": expected " + expected_text + ", found " + found_text);
    }
  }

  // Applies a function type to an argument; `name` is how messages call the function.
  Type apply(const Type& function_type, const Expr& argument, Location where, const std::string& name) {
    Type function = resolve(function_type);
    Type argument_type = infer(argument);
    if (function->kind == TypeNode::Kind::Variable) {
      // A parameter called as a function: it is one, of a shape the call decides.
      try {
        unify(function, make_function(make_variable(), make_variable()));
      } catch (const UnifyFailure&) {
      }
      function = resolve(function);
    }
    if (function->kind != TypeNode::Kind::Function) {
      throw CompileError(where, "expected a function to call, found " + name + " of type " +
                                    describe_type(function));
    }
    const Type& parameter = function->children[0];
    // Tuples nest to the right, so (a, (b, c)) and (a, b, c) are one type: the count of
    // arguments is only worth naming once the types disagree, and then it is named whenever the
    // counts differ, one argument for two as well as three for two.
    int expected_count = tuple_width(parameter);
    int found_count = tuple_width(argument_type);
    std::string expected_text = describe_type(parameter);
    std::string found_text = describe_type(argument_type);
    try {
      unify(argument_type, parameter);
    } catch (const UnifyFailure&) {
      if (expected_count != found_count) {
        throw CompileError(where, "arguments of " + name + ": expected " +
                                      std::to_string(expected_count) + ", of type " +
                                      expected_text + "; found " + std::to_string(found_count) +
                                      ", of type " + found_text);
      }
      throw CompileError(argument.where, "argument of " + name + ": expected " + expected_text +
                                             ", found " + found_text);
    }
    return function->children[1];
  }

  Type infer(const Expr& expr) {
    Type type = infer_unrecorded(expr);
    record_->expression_types[&expr] = type;
    return type;
  }

  Type infer_unrecorded(const Expr& expr) {
    const auto& c = expr.children;
    switch (expr.kind) {
      case ExprKind::Integer: return make_base(BaseType::Int);
      case ExprKind::Float: return make_base(BaseType::Float);
      case ExprKind::Character: return make_base(BaseType::Char);
      case ExprKind::String: return make_sequence(make_base(BaseType::Char));
      case ExprKind::Variable: return lookup_or_fail(expr.text, expr.where);
      case ExprKind::Pair: {
        Type left = infer(*c[0]);
        return make_pair(left, infer(*c[1]));
      }
      case ExprKind::Call: {
        if (expr.text == kJuxtaposedOnNewLine) {
          try {
            return call(expr);
          } catch (const CompileError& error) {
            throw error.extended(" (is a ';' missing before line " + std::to_string(expr.where.line) + "?)");
          }
        }
        return call(expr);
      }
      case ExprKind::Binary: return binary(expr);
      case ExprKind::Unary: {
        std::string name = expr.text == "-" ? "negate" : expr.text;
        Type type;
        if (!lookup(name, type) && !(expr.text == "#" && lookup("length", type))) {
          throw CompileError(expr.where, "expected a built-in for " + expr.text + ", found none in the basis");
        }
        record_->operator_instances[&expr] = type;
        return apply(type, *c[0], expr.where, expr.text);
      }
      case ExprKind::Index: {
        Type element = make_variable();
        expect(infer(*c[0]), make_sequence(element), c[0]->where, "indexed value");
        expect(infer(*c[1]), make_base(BaseType::Int), c[1]->where, "index");
        return element;
      }
      case ExprKind::If: {
        expect(infer(*c[0]), make_base(BaseType::Bool), c[0]->where, "condition of if");
        Type then_type = infer(*c[1]);
        expect(infer(*c[2]), then_type, c[2]->where, "else branch (must match the then branch)");
        return then_type;
      }
      case ExprKind::Let: {
        std::size_t scope = locals_.size();
        for (const Binding& binding : expr.bindings) {
          Type value = infer(*binding.value);
          bind_pattern(*binding.pattern, value, "let binding");
        }
        Type body = infer(*c[0]);
        locals_.resize(scope);
        return body;
      }
      case ExprKind::Over: {
        // Every generator's sequence is evaluated outside the apply-to-each: none of them sees
        // a variable that another generator binds.
        std::vector<Type> elements;
        for (const Binding& generator : expr.bindings) {
          elements.push_back(make_variable());
          expect(infer(*generator.value), make_sequence(elements.back()), generator.value->where,
                 "generator of an apply-to-each");
        }
        std::size_t scope = locals_.size();
        for (std::size_t i = 0; i < expr.bindings.size(); ++i) {
          bind_pattern(*expr.bindings[i].pattern, elements[i], "apply-to-each generator");
        }
        const Expr& body = c[0] ? *c[0] : *expr.bindings[0].pattern;
        Type result = infer(body);
        if (c[1]) expect(infer(*c[1]), make_base(BaseType::Bool), c[1]->where, "filter of an apply-to-each");
        locals_.resize(scope);
        return make_sequence(result);
      }
      case ExprKind::Lambda: {
        // The parameter is monomorphic, as a let's variables are.
        std::size_t scope = locals_.size();
        Type parameter = make_variable();
        bind_pattern(*expr.bindings[0].pattern, parameter, "parameter of a function expression");
        Type body = infer(*c[0]);
        locals_.resize(scope);
        return make_function(parameter, body);
      }
      case ExprKind::Sequence: {
        Type element = infer(*c[0]);
        for (std::size_t i = 1; i < c.size(); ++i) {
          expect(infer(*c[i]), element, c[i]->where, "sequence element (must match the first)");
        }
        return make_sequence(element);
      }
      case ExprKind::Empty: {
        std::map<std::string, Type> variables;
        return make_sequence(convert(*expr.type, variables, {}, {}));
      }
      case ExprKind::Range:
        for (const ExprPtr& part : c) {
          expect(infer(*part), make_base(BaseType::Int), part->where, "range bound");
        }
        return make_sequence(make_base(BaseType::Int));
    }
    throw CompileError(expr.where, "internal error: unknown expression");
  }

  Type binary(const Expr& expr) {
    const auto& c = expr.children;
    Type function = lookup_or_fail(expr.text, expr.where);
    record_->operator_instances[&expr] = function;
    Type left = infer(*c[0]);
    Type right = infer(*c[1]);
    Type resolved = resolve(function);
    if (resolved->kind != TypeNode::Kind::Function) {
      throw CompileError(expr.where, "expected a function for " + expr.text + ", found " + describe_type(resolved));
    }
    Type arguments = make_pair(left, right);
    expect(arguments, resolved->children[0], expr.where, "arguments of " + expr.text);
    return resolved->children[1];
  }

  // --- patterns ------------------------------------------------------------------------------

  void bind_pattern(const Expr& pattern, const Type& type, const std::string& what) {
    switch (pattern.kind) {
      case ExprKind::Variable:
        locals_.emplace_back(pattern.text, type);
        record_->expression_types[&pattern] = type;
        return;
      case ExprKind::Pair: {
        Type left = make_variable();
        Type right = make_variable();
        expect(type, make_pair(left, right), pattern.where, what + " (a tuple pattern)");
        bind_pattern(*pattern.children[0], left, what);
        bind_pattern(*pattern.children[1], right, what);
        return;
      }
      case ExprKind::Call: {
        const std::string& name = pattern.children[0]->text;
        auto datatype = datatypes_.find(name);
        if (datatype == datatypes_.end()) {
          throw CompileError(pattern.children[0]->where,
                             "expected a datatype constructor in the pattern, found '" + name + "'");
        }
        Type constructor = instantiate(datatype->second.constructor);
        expect(type, constructor->children[1], pattern.children[0]->where,
               what + " (a " + name + " pattern)");
        bind_pattern(*pattern.children[1], constructor->children[0], what);
        return;
      }
      default:
        throw CompileError(pattern.where, "expected a pattern, found an expression");
    }
  }

  // --- top-level forms -----------------------------------------------------------------------

  void check_function(const TopLevelForm& form, CheckedProgram& checked) {
    const FunctionDefinition& function = form.function;
    locals_.clear();
    Type argument = make_variable();
    Type result = make_variable();
    Type type = make_function(argument, result);
    std::map<std::string, Type> declared_variables;
    std::map<std::string, TypeClass> declared_classes;
    const TypeSignature* signature = function.signature ? &*function.signature : nullptr;
    if (signature) {
      Type declared = convert_signature(*signature, declared_variables);
      declared_classes = context_classes(signature->context);
      if (resolve(declared)->kind != TypeNode::Kind::Function) {
        throw CompileError(signature->type->where,
                           "expected a function type for " + function.name + ", found " +
                               describe_type(declared));
      }
      unify(type, declared);
    }
    // Within its own body a function is monomorphic.
    locals_.emplace_back(function.name, type);
    bind_pattern(*function.arguments, argument, "parameters of " + function.name);
    Type body = infer(*function.body);
    expect(body, result, function.body->where,
           signature ? "body of " + function.name + " (its declared result)"
                              : "body of " + function.name);
    // A declaration may not promise more than the body gives: each declared variable must stay a
    // distinct variable of its declared class.
    std::set<const TypeNode*> seen;
    for (const auto& [name, variable] : declared_variables) {
      Type now = resolve(variable);
      auto declared_class = declared_classes.count(name) ? declared_classes[name] : TypeClass::any_type();
      if (now->kind != TypeNode::Kind::Variable || !seen.insert(now.get()).second ||
          !(now->type_class == declared_class)) {
        throw CompileError(signature->type->where,
                           "declared type of " + function.name + ": expected the type variable " +
                               name + " in " + type_class_name(declared_class) + ", found " +
                               describe_type(now) + " from the body");
      }
    }
    locals_.clear();
    globals_[function.name] = type;
    checked.function_types[function.name] = type;
    checked.forms.push_back({function.name, type, true});
  }

  void check_datatype(const TopLevelForm& form, CheckedProgram& checked) {
    const DatatypeDefinition& datatype = form.datatype;
    std::map<std::string, Type> variables;
    Type fields = convert_signature(datatype.fields, variables, datatype.name);
    // Parameters: the context's variables in its order, then any others as they appear.
    std::vector<Type> parameters;
    std::set<const TypeNode*> added;
    for (const TypeContextEntry& entry : datatype.fields.context) {
      auto found = variables.find(entry.variable);
      if (found != variables.end() && added.insert(found->second.get()).second) {
        parameters.push_back(found->second);
      }
    }
    collect_variables(fields, parameters, added);
    Type constructor = make_function(fields, make_datatype(datatype.name, parameters));
    datatypes_[datatype.name] = Datatype{constructor};
    globals_[datatype.name] = constructor;
    checked.forms.push_back({datatype.name, constructor, true});
  }

  static void collect_variables(const Type& type, std::vector<Type>& out, std::set<const TypeNode*>& added) {
    Type t = resolve(type);
    if (t->kind == TypeNode::Kind::Variable) {
      if (added.insert(t.get()).second) out.push_back(t);
      return;
    }
    for (const Type& child : t->children) collect_variables(child, out, added);
  }

  void check_binding(const TopLevelForm& form, CheckedProgram& checked) {
    locals_.clear();
    Type value = infer(*form.binding.value);
    bind_pattern(*form.binding.pattern, value, "top-level binding");
    for (const auto& [name, type] : locals_) {
      globals_[name] = type;
      checked.forms.push_back({name, type, false});
    }
    locals_.clear();
  }

  const Basis& basis_;
  const NamesOutside& outside_;
  const DefinitionPlaces* places_ = nullptr;  // the program's, while it is checked
  std::size_t form_ = 0;                      // the form being checked
  std::map<std::string, Type> globals_;
  std::map<std::string, Type> basis_types_;
  std::map<std::string, Datatype> datatypes_;
  std::vector<std::pair<std::string, Type>> locals_;
  CheckedProgram* record_ = nullptr;
};

}  // namespace

CheckedProgram check_program(const Program& program, const Basis& basis, const NamesOutside& outside) {
  return Checker(basis, outside).run(program);
}

std::string program_type(const CheckedProgram& checked) {
  if (checked.expressions.empty()) return "";
  Type whole = checked.expressions.back();
  for (std::size_t i = checked.expressions.size() - 1; i-- > 0;) {
    whole = make_pair(checked.expressions[i], whole);
  }
  return print_type(whole, false);
}

std::string describe_form(const FormType& form) {
  if (form.is_function) return form.name + " = fn : " + print_type(form.type, true);
  return form.name + " : " + print_type(form.type, true);
}

}  // namespace nesl
