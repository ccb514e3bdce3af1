#include "core/specializer.hpp"

#include "nesl/diagnostics.hpp"

namespace nesl::specializing {

// eql(a, b): == on numbers and characters, not-xor on booleans, componentwise on tuples, and
// on sequences equal lengths and then every pair of elements equal.
core::ExprPtr Specializer::equal_of(core::ExprPtr left, core::ExprPtr right, const Type& type) {
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
core::ExprPtr Specializer::identity_of(const Type& type) {
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
core::ExprPtr Specializer::hash_of(core::ExprPtr value, const Type& type) {
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

core::ExprPtr Specializer::library_call(const std::string& name, core::ExprPtr argument, Type result) {
  auto e = core::make(core::Kind::Call, result);
  e->name = request(*library_.functions.at(name), library_, make_function(argument->type, result));
  e->children = {std::move(argument)};
  return e;
}

core::ExprPtr Specializer::string_constant(const std::string& text) {
  if (text.empty()) return core::make(core::Kind::Empty, string_type());
  auto sequence = core::make(core::Kind::Sequence, string_type());
  for (char ch : text) {
    sequence->children.push_back(constant(BaseType::Char, std::to_string(static_cast<unsigned char>(ch))));
  }
  return sequence;
}

core::ExprPtr Specializer::append(core::ExprPtr left, core::ExprPtr right) {
  return primitive("++", pair(std::move(left), std::move(right)), string_type());
}

core::ExprPtr Specializer::fresh_variable(const Type& type, core::PatternPtr& bound) {
  bound = std::make_shared<core::Pattern>();
  bound->name = "tmp" + std::to_string(++temporaries_) + "_";
  bound->type = type;
  return variable(bound->name, type);
}

// @v: numbers, booleans and characters as basis.nesl writes them, a sequence as
// [e1, e2, ...], a tuple as (a, b, c).
core::ExprPtr Specializer::string_of(core::ExprPtr value, const Type& type) {
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
core::ExprPtr Specializer::tuple_rest_string(core::ExprPtr value, const Type& type) {
  Type t = resolve(type);
  if (t->kind != TypeNode::Kind::Pair) return string_of(std::move(value), t);
  return with_parts(std::move(value), t, [&](core::ExprPtr left, core::ExprPtr right) {
    return append(string_of(left, t->children[0]),
                  append(string_constant(", "), string_of(right, t->children[1])));
  });
}

}  // namespace nesl::specializing
