#include "flatten/layout.hpp"

#include "nesl/diagnostics.hpp"

namespace nesl::flattening {
namespace {

void collect_leaves(const Type& type, std::vector<Leaf>& out) {
  Type t = resolve(type);
  switch (t->kind) {
    case TypeNode::Kind::Base: out.push_back(base_leaf(t->base)); return;
    case TypeNode::Kind::Sequence:
      out.push_back(Leaf::Segdes);
      collect_leaves(t->children[0], out);
      return;
    case TypeNode::Kind::Pair:
      collect_leaves(t->children[0], out);
      collect_leaves(t->children[1], out);
      return;
    default: throw CompileError({}, "not supported yet: a value of type " + print_type(t));
  }
}

void walk_parts(const Type& type, std::size_t first, const PartRule& part, Leaves& out) {
  Type t = resolve(type);
  if (t->kind != TypeNode::Kind::Pair) {
    const Leaves leaves = part(t, first, slots(t));
    out.insert(out.end(), leaves.begin(), leaves.end());
    return;
  }
  walk_parts(t->children[0], first, part, out);
  walk_parts(t->children[1], first + slots(t->children[0]), part, out);
}

}  // namespace

Leaf base_leaf(BaseType base) {
  switch (base) {
    case BaseType::Float: return Leaf::Float;
    case BaseType::Bool: return Leaf::Bool;
    default: return Leaf::Int;  // int, and char as its code
  }
}

std::vector<Leaf> leaves_of(const Type& type) {
  std::vector<Leaf> out;
  collect_leaves(type, out);
  return out;
}

std::size_t slots(const Type& type) { return leaves_of(type).size(); }

Leaves slice(const Leaves& leaves, std::size_t from, std::size_t count) {
  return Leaves(leaves.begin() + static_cast<long>(from), leaves.begin() + static_cast<long>(from + count));
}

std::vector<Type> components(const Type& type, int count) {
  std::vector<Type> parts;
  Type t = resolve(type);
  for (int i = 1; i < count; ++i) {
    parts.push_back(resolve(t)->children[0]);
    t = resolve(t)->children[1];
  }
  parts.push_back(t);
  return parts;
}

Type element_type(const Type& sequence) { return resolve(sequence)->children[0]; }

Leaves map_leaves(const Type& type, const PartRule& part) {
  Leaves out;
  walk_parts(type, 0, part, out);
  return out;
}

}  // namespace nesl::flattening
