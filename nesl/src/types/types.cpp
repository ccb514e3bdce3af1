#include "nesl/types.hpp"

#include <map>

#include "syntax/enclose.hpp"

namespace nesl {

bool TypeClass::admits(BaseType base) const {
  if (any) return true;
  switch (base) {
    case BaseType::Int: return members & kInt;
    case BaseType::Float: return members & kFloat;
    case BaseType::Char: return members & kChar;
    case BaseType::Bool: return members & kBool;
  }
  return false;
}

std::string type_class_name(const TypeClass& type_class) {
  if (type_class.any) return "any";
  if (type_class == TypeClass::number()) return "number";
  if (type_class == TypeClass::ordinal()) return "ordinal";
  if (type_class == TypeClass::logical()) return "logical";
  return "";
}

bool type_class_from_name(const std::string& name, TypeClass& out) {
  if (name == "any") out = TypeClass::any_type();
  else if (name == "number") out = TypeClass::number();
  else if (name == "ordinal") out = TypeClass::ordinal();
  else if (name == "logical") out = TypeClass::logical();
  else return false;
  return true;
}

namespace {


int next_variable_id = 0;

Type make_node(TypeNode::Kind kind, std::vector<Type> children = {}) {
  auto node = std::make_shared<TypeNode>();
  node->kind = kind;
  node->children = std::move(children);
  return node;
}
}  // namespace

Type make_variable(TypeClass type_class) {
  Type node = make_node(TypeNode::Kind::Variable);
  node->type_class = type_class;
  node->id = ++next_variable_id;
  return node;
}

Type make_base(BaseType base) {
  Type node = make_node(TypeNode::Kind::Base);
  node->base = base;
  return node;
}

Type make_sequence(Type element) { return make_node(TypeNode::Kind::Sequence, {std::move(element)}); }

Type make_pair(Type left, Type right) {
  return make_node(TypeNode::Kind::Pair, {std::move(left), std::move(right)});
}

Type make_function(Type argument, Type result) {
  return make_node(TypeNode::Kind::Function, {std::move(argument), std::move(result)});
}

Type make_datatype(std::string name, std::vector<Type> parameters) {
  Type node = make_node(TypeNode::Kind::Datatype, std::move(parameters));
  node->name = std::move(name);
  return node;
}

Type resolve(const Type& type) {
  Type current = type;
  while (current->kind == TypeNode::Kind::Variable && current->bound_to) current = current->bound_to;
  // Each variable on the way is bound to the end directly, so that a chain of unifications (one
  // per operator of `y + y + ... + y`) is walked once, not once per lookup.
  for (Type node = type; node != current;) {
    Type next = node->bound_to;
    node->bound_to = current;
    node = std::move(next);
  }
  return current;
}

namespace {

// Names variables a, b, ... in the order the printer meets them.
class TypePrinter {
 public:
  // At the top, a pair prints without parentheses and its right side flattens (`int, int, int`);
  // inside anything else it is parenthesized.
  std::string print(const Type& type, bool top) {
    Type t = resolve(type);
    switch (t->kind) {
      case TypeNode::Kind::Variable: return variable_name(t);
      case TypeNode::Kind::Base:
        switch (t->base) {
          case BaseType::Int: return "int";
          case BaseType::Float: return "float";
          case BaseType::Bool: return "bool";
          case BaseType::Char: return "char";
        }
        return "?";
      case TypeNode::Kind::Sequence: return enclose('[', print(t->children[0], false), ']');
      case TypeNode::Kind::Pair: {
        // Variables are named left to right, so the left side must be printed first.
        std::string text = print(t->children[0], false);
        text += ", " + print(t->children[1], true);
        return top ? text : enclose('(', text, ')');
      }
      case TypeNode::Kind::Function: {
        std::string text = print(t->children[0], false);
        text += " -> " + print(t->children[1], false);
        return top ? text : enclose('(', text, ')');
      }
      case TypeNode::Kind::Datatype: {
        std::string text = t->name;
        if (!t->children.empty()) {
          text += "(";
          for (std::size_t i = 0; i < t->children.size(); ++i) {
            if (i > 0) text += ", ";
            text += print(t->children[i], false);
          }
          text += ")";
        }
        return text;
      }
    }
    return "?";
  }

  std::string context() const {
    if (order_.empty()) return "";
    std::string out = " :: (";
    for (std::size_t i = 0; i < order_.size(); ++i) {
      if (i > 0) out += "; ";
      out += names_.at(order_[i].get()) + " in " + type_class_name(order_[i]->type_class);
    }
    return out + ")";
  }

 private:
  std::string variable_name(const Type& variable) {
    auto found = names_.find(variable.get());
    if (found != names_.end()) return found->second;
    std::size_t n = order_.size();
    std::string name(1, static_cast<char>('a' + n % 26));
    if (n >= 26) name += std::to_string(n / 26);
    names_[variable.get()] = name;
    order_.push_back(variable);
    return name;
  }

  std::map<const TypeNode*, std::string> names_;
  std::vector<Type> order_;
};

}  // namespace

std::string print_type(const Type& type, bool with_context) {
  TypePrinter printer;
  std::string text = printer.print(type, true);
  if (with_context) text += printer.context();
  return text;
}

std::string describe_type(const Type& type) {
  TypePrinter printer;
  std::string text = printer.print(type, resolve(type)->kind != TypeNode::Kind::Pair);
  return text + printer.context();
}

}  // namespace nesl
