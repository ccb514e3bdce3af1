#include "flatten/flattener.hpp"

#include <algorithm>

#include "flatten/constants.hpp"

namespace nesl::flattening {

// pack_value for updated_if: scalars gathered from the positions of the flagged instances.
Leaves Flattener::gather_value(const Type& type, const Leaves& leaves, Value flags, Value positions, Value packed) {
  return map_leaves(type, [&](const Type& part, std::size_t first, std::size_t count) -> Leaves {
    if (part->kind != TypeNode::Kind::Base) return pack_value(part, slice(leaves, first, count), flags, context());
    return {op1(Op::BPermute, leaf_of(leaves[first]), {leaves[first], positions, context(), packed})};
  });
}

// The leaves of the elements of sequences (segmented by `segdes`) each moved to its index within
// its own sequence: scalars, in tuples too, by one PERMUTE each; sequences by merge at their
// positions in the concatenated elements.
Leaves Flattener::permute_elements(const Type& element, const Leaves& leaves, Value indices, Value segdes) {
  return map_leaves(element, [&](const Type& part, std::size_t first, std::size_t count) -> Leaves {
    if (part->kind == TypeNode::Kind::Base) {
      return {op1(Op::Permute, leaf_of(leaves[first]), {leaves[first], indices, segdes})};
    }
    Value outer = context();
    Value starts = op1(Op::Dist, Leaf::Int, {op1(Op::PlusScan, Leaf::Int, {lengths(segdes), outer}), segdes});
    Value positions = op1(Op::Add, Leaf::Int, {indices, starts});
    Value inner = total_context(segdes, outer);
    return merge(part, {{slice(leaves, first, count), positions, inner}}, inner, true);
  });
}

// The lifted value over `over`'s instances restricted to those whose flag is set. With `counts`,
// the first part is packed by the descriptor it gives, whose PACK also gives what each of its
// segments keeps (a filter's new segdes, with no pass of its own).
Leaves Flattener::pack_value(const Type& type, const Leaves& leaves, Value flags, Value over,
                              PackCounts* counts) {
  return map_leaves(type, [&](const Type& part, std::size_t first, std::size_t count) -> Leaves {
    const Value head = leaves[first];
    const bool counting = counts && first == 0;
    const Value by = counting ? counts->descriptor : over;
    const Value packed_head = part->kind == TypeNode::Kind::Base ? head : lengths(head);
    const Leaves packed = op(Op::Pack, leaf_of(packed_head), {packed_head, flags, by});
    if (counting) counts->kept = packed[1];
    if (part->kind == TypeNode::Kind::Base) return {packed[0]};
    Leaves result = {make_segdes(packed[0])};
    Value inner_flags = op1(Op::Dist, Leaf::Bool, {flags, head});
    Value inner = total_context(head, over);
    Leaves rest = pack_value(element_type(part), slice(leaves, first + 1, count - 1), inner_flags, inner);
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  });
}

// One lifted value over `over`'s instances from parts that each fill some positions. With
// `one_to_one` the only part fills every position once (a permutation within each instance of
// `over`): each scalar then moves by one PERMUTE, with no default vector to write into.
Leaves Flattener::merge(const Type& type, const std::vector<Part>& parts, Value over, bool one_to_one) {
  one_to_one = one_to_one && parts.size() == 1;
  return map_leaves(type, [&](const Type& component, std::size_t first, std::size_t count) {
    std::vector<Part> pieces;
    for (const Part& part : parts) pieces.push_back({slice(part.leaves, first, count), part.positions, part.context});
    return merge_component(component, pieces, over, one_to_one);
  });
}

// merge of one part of a tuple: a base value or a sequence.
Leaves Flattener::merge_component(const Type& t, const std::vector<Part>& parts, Value over, bool one_to_one) {
  if (t->kind == TypeNode::Kind::Base) {
    Leaf leaf = base_leaf(t->base);
    if (one_to_one) return {op1(Op::Permute, leaf, {parts[0].leaves[0], parts[0].positions, over})};
    Value merged = distribute(zero_of(leaf), over);
    for (const Part& part : parts) {
      merged = op1(Op::DPermute, leaf, {part.leaves[0], part.positions, merged, part.context, over});
    }
    return {merged};
  }
  std::vector<Part> length_parts;
  for (const Part& part : parts) length_parts.push_back({{lengths(part.leaves[0])}, part.positions, part.context});
  Value merged_lengths = merge(make_base(BaseType::Int), length_parts, over, one_to_one)[0];
  Value segdes = make_segdes(merged_lengths);
  Value starts = op1(Op::PlusScan, Leaf::Int, {merged_lengths, over});
  Value inner = make_segdes(op1(Op::PlusReduce, Leaf::Int, {merged_lengths, over}));
  std::vector<Part> inner_parts;
  for (const Part& part : parts) {
    Value part_starts = op1(Op::BPermute, Leaf::Int, {starts, part.positions, over, part.context});
    Value ones = distribute(scalar(Leaf::Int, 1), part.context);
    Value inner_positions = op1(Op::Index, {part_starts, ones, part.leaves[0]});
    inner_parts.push_back({slice(part.leaves, 1, part.leaves.size() - 1), inner_positions,
                           total_context(part.leaves[0], part.context)});
  }
  Leaves result = {segdes};
  Leaves rest = merge(element_type(t), inner_parts, inner, one_to_one);
  result.insert(result.end(), rest.begin(), rest.end());
  return result;
}

// The lifted value over `destination`'s instances whose instance j is the source's instance
// positions[j]; `source` counts the source's instances. Either both are one segment, or they
// have as many segments each, an instance's position counting within its segment of `source`
// (`grouped`): then nothing counts all the instances at once.
Leaves Flattener::gather(const Type& type, const Leaves& leaves, Value positions, Value source, Value destination,
                         bool grouped) {
  return map_leaves(type, [&](const Type& part, std::size_t first, std::size_t count) -> Leaves {
    const Value head = leaves[first];
    if (part->kind == TypeNode::Kind::Base) {
      return {op1(Op::BPermute, base_leaf(part->base), {head, positions, source, destination})};
    }
    Value source_lengths = lengths(head);
    Value new_lengths = op1(Op::BPermute, Leaf::Int, {source_lengths, positions, source, destination});
    Value segdes = make_segdes(new_lengths);
    Value starts = op1(Op::PlusScan, Leaf::Int, {source_lengths, source});
    Value gathered_starts = op1(Op::BPermute, Leaf::Int, {starts, positions, source, destination});
    Value ones = distribute(scalar(Leaf::Int, 1), grouped ? counting(new_lengths) : destination);
    Value inner_positions = op1(Op::Index, {gathered_starts, ones, segdes});
    Leaves result = {segdes};
    Leaves rest = gather(element_type(part), slice(leaves, first + 1, count - 1), inner_positions,
                         total_context(head, source), total_context(segdes, destination), grouped);
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  });
}

Value Flattener::counting(Value per_element) {
  return make_segdes(op1(Op::Length, leaf_of(per_element), {per_element}));
}

// Each current instance's value copied to each element of its segment of `groups`, an instance's
// copies gathered from its own value only (gather's `grouped`): no vector counts the copies'
// elements of all instances at once, so they may be more than a vector holds while each
// instance's are fewer (streamed where they are read).
Leaves Flattener::copies_by_group(const Type& type, const Leaves& leaves, Value groups) {
  return map_leaves(type, [&](const Type& part, std::size_t first, std::size_t count) -> Leaves {
    const Value head = leaves[first];
    if (part->kind == TypeNode::Kind::Base) return {op1(Op::Dist, base_leaf(part->base), {head, groups})};
    const Value copy_lengths = op1(Op::Dist, Leaf::Int, {lengths(head), groups});
    const Value segdes = make_segdes(copy_lengths);
    const Value copies = counting(copy_lengths);
    const Value positions = op1(Op::Index, {distribute(zero_of(Leaf::Int), copies),
                                            distribute(scalar(Leaf::Int, 1), copies), segdes});
    const Value destination = make_segdes(op1(Op::PlusReduce, Leaf::Int, {lengths(segdes), groups}));
    Leaves result = {segdes};
    const Leaves rest =
        gather(element_type(part), slice(leaves, first + 1, count - 1), positions, head, destination, true);
    result.insert(result.end(), rest.begin(), rest.end());
    return result;
  });
}

// The value of each of the current instances copied to each element of its segment. Outside an
// apply-to-each (one instance) the copies are made in groups of instances, each group's elements
// at every level at most a vector's (2147483647), from a copy of the value per group: the
// copies of a matrix for each row of another may then be more than a vector holds.
Leaves Flattener::replicate(const Type& type, const Leaves& leaves, Value segdes) {
  const std::vector<Leaf> kinds = leaves_of(type);
  if (context_ >= 0 || std::find(kinds.begin(), kinds.end(), Leaf::Segdes) == kinds.end()) {
    return copies_by_group(type, leaves, segdes);
  }
  // The longest vector the value has: its elements at its longest level.
  std::vector<bool> top(leaves.size(), false);
  map_leaves(type, [&](const Type&, std::size_t first, std::size_t) -> Leaves {
    top[first] = true;
    return {};
  });
  Value longest = int_constant(1);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    if (kinds[i] == Leaf::Segdes && top[i]) continue;
    const Value elements = kinds[i] == Leaf::Segdes ? lengths(leaves[i]) : leaves[i];
    const Value size = op1(Op::Length, leaf_of(elements), {elements});
    longest = op1(Op::Select, Leaf::Int, {op1(Op::Greater, Leaf::Int, {size, longest}), size, longest});
  }
  const Value copies = lengths(segdes);
  const Value per_group = op1(Op::Div, Leaf::Int, {int_constant(2147483647), longest});
  const Value partial = op1(Op::BoolToInt, {op1(Op::NotEqual, Leaf::Int,
                                                {op1(Op::Mod, Leaf::Int, {copies, per_group}), int_constant(0)})});
  const Value group_count = op1(Op::Add, Leaf::Int, {op1(Op::Div, Leaf::Int, {copies, per_group}), partial});
  const Value one_per_group = make_segdes(group_count);
  const Value firsts = op1(Op::Index, {int_constant(0), per_group, one_per_group});
  const Value left = op1(Op::Sub, Leaf::Int, {op1(Op::Dist, Leaf::Int, {copies, one_per_group}), firsts});
  const Value full = op1(Op::Dist, Leaf::Int, {per_group, one_per_group});
  const Value sizes = op1(Op::Select, Leaf::Int, {op1(Op::Less, Leaf::Int, {left, full}), left, full});
  const Leaves per_group_values = copies_by_group(type, leaves, one_per_group);
  return copies_by_group(type, per_group_values, make_segdes(sizes));
}

// Empty value of the type, lifted over no instances.
Leaves Flattener::empty_lifted(const Type& type) {
  Leaves result;
  for (Leaf leaf : leaves_of(type)) {
    if (leaf == Leaf::Segdes) {
      result.push_back(make_segdes(constant(empty_vector(Leaf::Int))));
    } else {
      result.push_back(constant(empty_vector(leaf)));
    }
  }
  return result;
}

// What a position no value was written to holds, in every active instance (the classic's
// len_put): 0, 0.0, F, a space for a character, an empty sequence; a tuple of these.
Leaves Flattener::zero_value(const Type& type) {
  return map_leaves(type, [&](const Type& part, std::size_t, std::size_t) -> Leaves {
    if (part->kind != TypeNode::Kind::Base) return empty_sequence(part);
    return {everywhere(part->base == BaseType::Char ? scalar(Leaf::Int, 32) : zero_of(base_leaf(part->base)))};
  });
}

Leaves Flattener::empty_sequence(const Type& type) {
  Value segdes = make_segdes(everywhere(zero_of(Leaf::Int)));
  Leaves result = {segdes};
  Leaves rest = empty_lifted(element_type(type));
  result.insert(result.end(), rest.begin(), rest.end());
  return result;
}

}  // namespace nesl::flattening
