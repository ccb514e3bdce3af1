// Generators: definitions that make their elements out of descriptors, values per segment,
// constants and sources read at positions, and read no operand at each element (an INDEX, a DIST,
// float(i) of an INDEX). A library may make a cheap one again in each reader rather than store
// its result; how cheap is its own rule, over the walk here.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "vcode/superop.hpp"
#include "vcode/superop_analysis.hpp"

namespace vcode {

// Where `definition` is a generator whose every node is an operand, a constant, an INDEX, a DIST
// or one that `computed_cheaply` accepts: how many nodes it computes (all but its operands and
// constants). Nothing otherwise.
template <class Rule>
std::optional<std::size_t> generator_size(const SuperOp& definition, Rule&& computed_cheaply) {
  using Kind = SuperOpNode::Kind;
  const std::vector<bool> at_elements = read_at_elements_only(definition);
  std::size_t computed = 0;
  for (std::size_t i = 0; i < definition.nodes.size(); ++i) {
    const SuperOpNode& n = definition.nodes[i];
    switch (n.kind) {
      case Kind::Operand:  // a descriptor, values per segment, a source: never the elements' own
        if (n.result != TypeKeyword::Segdes && at_elements[i]) return std::nullopt;
        continue;
      case Kind::Constant:
        continue;
      case Kind::Index:
      case Kind::Dist:
        break;
      default:
        if (!computed_cheaply(n)) return std::nullopt;
    }
    ++computed;
  }
  return computed;
}

}  // namespace vcode
