#include "flatten/flattener.hpp"

#include "flatten/constants.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

Leaves Flattener::permute_primitive(const Primitive& p, const Arguments& args) {
  switch (p.kind) {
    case PrimitiveKind::Element: {
      Value segdes = args[0][0];
      Value index = args[1][0];
      Value outer = context();
      Value sizes = lengths(segdes);
      if (options_.argument_checks) check_each_index(index, sizes, "Sequence reference (a[i]) out of bounds.");
      Value starts = op1(Op::PlusScan, Leaf::Int, {sizes, outer});
      Value positions = op1(Op::Add, Leaf::Int, {starts, index});
      return gather(element_type(args.types[0]), slice(args[0], 1, args[0].size() - 1), positions,
                    total_context(segdes, outer), outer);
    }
    case PrimitiveKind::Get: {
      Value outer = context();
      Value source = args[0][0];
      Value wanted = args[1][0];
      Value positions = checked_positions(source, wanted, args[1][1], outer,
                                          "Index out of bounds for function ->.");
      Leaves result = {wanted};
      Leaves rest = gather(element_type(args.types[0]), slice(args[0], 1, args[0].size() - 1), positions,
                           total_context(source, outer), total_context(wanted, outer));
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    case PrimitiveKind::Put: {
      require_scalar_leaves(args.types[0], args.name);
      Value outer = context();
      Value target = args[0][0];
      Value pairs = args[1][0];
      Value pairs_context = total_context(pairs, outer);
      Value positions = checked_positions(target, pairs, args[1][1], outer,
                                          "Index out of bounds for function <-.");
      // Each leaf of the elements (a tuple's components side by side) is scattered alike.
      Value target_context = total_context(target, outer);
      Leaves result = {target};
      for (std::size_t j = 1; j < args[0].size(); ++j) {
        Leaf leaf = leaf_of(args[0][j]);
        result.push_back(op1(Op::DPermute, leaf, {args[1][j + 1], positions, args[0][j], pairs_context, target_context}));
      }
      return result;
    }
    case PrimitiveKind::CondPut:
    case PrimitiveKind::FlagPermute: {
      require_flat(args.types[0], args.name);
      Leaf leaf = leaf_of(args[0][1]);
      Value source = args[0][0];
      Value target = args[3][0];
      Value flags = args[2][1];
      if (p.kind == PrimitiveKind::FlagPermute) {
        return {target, op1(Op::FPermute, leaf, {args[0][1], args[1][1], flags, source, target})};
      }
      Leaves values = op(Op::Pack, leaf, {args[0][1], flags, source});
      Value indices = op(Op::Pack, Leaf::Int, {args[1][1], flags, source})[0];
      return {target, op1(Op::DPermute, leaf, {values[0], indices, args[3][1], values[1], target})};
    }
    case PrimitiveKind::Replace: {
      require_scalar_leaves(args.types[0], args.name);
      // The classic checked no index of rep; with the checks on ours is checked as <-'s are,
      // so that a bad one stops the program in NESL's words rather than the VM's.
      if (options_.argument_checks) {
        Value index = args[2][0];
        Value below = op1(Op::Less, Leaf::Int, {index, everywhere(zero_of(Leaf::Int))});
        Value above = op1(Op::GreaterEq, Leaf::Int, {index, lengths(args[0][0])});
        check(op1(Op::Or, Leaf::Bool, {below, above}), "Index out of bounds for function rep.");
      }
      Leaves result = {args[0][0]};
      for (std::size_t j = 1; j < args[0].size(); ++j) {
        Leaf leaf = leaf_of(args[0][j]);
        result.push_back(op1(Op::Replace, leaf, {args[0][j], args[2][0], args[1][j - 1], args[0][0]}));
      }
      return result;
    }
    case PrimitiveKind::Permute: {
      Value segdes = args[0][0];
      Leaves result = {segdes};
      Leaves rest = permute_elements(element_type(args.types[0]), slice(args[0], 1, args[0].size() - 1), args[1][1], segdes);
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + args.name + " is not a permute primitive");
}

// Where each index of `indices` (segmented by `wanted`) falls in the concatenated data of the
// sequences `sequences`, one per instance of `outer`; with argument checks, an index outside its
// sequence stops the program with `message` first (-> and <- share the rule).
Value Flattener::checked_positions(Value sequences, Value wanted, Value indices, Value outer,
                                   const std::string& message) {
  Value sequence_lengths = lengths(sequences);
  if (options_.argument_checks) check_indices(indices, wanted, sequence_lengths, message);
  Value starts = op1(Op::Dist, Leaf::Int, {op1(Op::PlusScan, Leaf::Int, {sequence_lengths, outer}), wanted});
  return op1(Op::Add, Leaf::Int, {indices, starts});
}

// One index per current instance, each below its instance's size: elementwise compares and one
// reduction, a chain the cpu backend runs in one pass (a reduction of the smallest index would be
// a second pass).
void Flattener::check_each_index(Value index, Value sizes, const std::string& message) {
  const Value below = op1(Op::Less, Leaf::Int, {index, everywhere(zero_of(Leaf::Int))});
  const Value above = op1(Op::GreaterEq, Leaf::Int, {index, sizes});
  check(op1(Op::Or, Leaf::Bool, {below, above}), message);
}

// Indices segmented by `wanted` (one segment per current instance), each below its instance's
// size: the smallest and largest index of each segment decide it, so the compares are over the
// instances and only the two reductions read every index. An empty segment's extremes are the
// reductions' identities, which pass.
void Flattener::check_indices(Value indices, Value wanted, Value sizes, const std::string& message) {
  const Value lowest = op1(Op::MinReduce, Leaf::Int, {indices, wanted});
  const Value highest = op1(Op::MaxReduce, Leaf::Int, {indices, wanted});
  const Value below = op1(Op::Less, Leaf::Int, {lowest, everywhere(zero_of(Leaf::Int))});
  const Value above = op1(Op::GreaterEq, Leaf::Int, {highest, sizes});
  check(op1(Op::Or, Leaf::Bool, {below, above}), message);
}
}  // namespace nesl::flattening
