// The value layout of FRONTEND.md §3: a value of a type is its leaves (a segdes before the
// elements it describes, tuples side by side), and one walk over a type's parts.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "nesl/flat.hpp"
#include "nesl/types.hpp"

namespace nesl::flattening {

using flat::Leaf;
using flat::Value;
using Leaves = std::vector<Value>;

Leaf base_leaf(BaseType base);
std::vector<Leaf> leaves_of(const Type& type);
std::size_t slots(const Type& type);
Leaves slice(const Leaves& leaves, std::size_t from, std::size_t count);
// The components of a right-nested tuple type, as many as a primitive takes.
std::vector<Type> components(const Type& type, int count);
Type element_type(const Type& sequence);

// A value's leaves from its parts: `part` is called, left to right, for each part of `type`
// that is not a tuple (a base type or a sequence) with where its leaves start among the
// value's and how many there are; the leaves it gives are concatenated.
using PartRule = std::function<Leaves(const Type& part, std::size_t first, std::size_t count)>;
Leaves map_leaves(const Type& type, const PartRule& part);

}  // namespace nesl::flattening
