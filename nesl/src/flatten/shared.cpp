// The primitives that read a shared sequence in place (FLATTENING.md): each current instance
// finds its sequence in the shared data through its group, so the work is the instances', never
// the sequence's. A grouped read is a BPERMUTE from the outer instances' sequences (one segment
// each) to their groups of current instances, each index counting within its own sequence: no
// vector counts all the current instances' elements at once.
#include "flatten/constants.hpp"
#include "flatten/flattener.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

std::optional<Variable> Flattener::shared_operand(const Primitive& p, const core::Expr& e) const {
  if (p.kind != PrimitiveKind::Element && p.kind != PrimitiveKind::Get && p.kind != PrimitiveKind::Length) {
    return std::nullopt;
  }
  const core::Expr& argument = *e.children[0];
  const core::Expr& sequence = p.arity == 1 ? argument : *argument.children[0];
  if (sequence.kind != core::Kind::Variable) return std::nullopt;
  const Variable& v = find(sequence.name);
  if (!v.shared) return std::nullopt;
  return v;
}

Value Flattener::shared_lengths(const Variable& v) {
  const Value outer_lengths = lengths(v.leaves[0]);
  if (v.groups < 0) return spread(Leaf::Int, outer_lengths, context_);
  return op1(Op::Dist, Leaf::Int, {outer_lengths, v.groups});
}

Leaves Flattener::shared_primitive(const Primitive& p, const core::Expr& e, const Variable& v) {
  const core::Expr& argument = *e.children[0];
  const Type element = element_type(v.type);
  const Leaves data = slice(v.leaves, 1, v.leaves.size() - 1);
  // The one sequence every instance reads (one instance outside): its elements as one segment.
  const auto whole = [&] { return total_context(v.leaves[0], make_segdes(int_constant(1))); };
  switch (p.kind) {
    case PrimitiveKind::Length: return {shared_lengths(v)};
    case PrimitiveKind::Element: {
      const Value index = expr(*argument.children[1])[0];
      if (options_.argument_checks) check_each_index(index, shared_lengths(v), "Sequence reference (a[i]) out of bounds.");
      if (v.groups < 0) return gather(element, data, index, whole(), context());
      return gather(element, data, index, v.leaves[0], v.groups, true);
    }
    case PrimitiveKind::Get: {
      const Leaves wanted = expr(*argument.children[1]);
      if (options_.argument_checks) check_indices(wanted[1], wanted[0], shared_lengths(v), "Index out of bounds for function ->.");
      Leaves result = {wanted[0]};
      const Leaves rest =
          v.groups < 0
              ? gather(element, data, wanted[1], whole(), total_context(wanted[0], context()))
              : gather(element, data, wanted[1], v.leaves[0],
                       make_segdes(op1(Op::PlusReduce, Leaf::Int, {lengths(wanted[0]), v.groups})), true);
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + e.name + " does not read a shared sequence");
}

}  // namespace nesl::flattening
