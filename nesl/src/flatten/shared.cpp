// The primitives that read a shared sequence in place (FLATTENING.md): each current instance
// finds its sequence in the shared data through its owner, so the work is the instances', never
// the sequence's.
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

SharedReach Flattener::reach(const Variable& v) {
  const Value outer = v.outer_context >= 0 ? v.outer_context : make_segdes(int_constant(1));
  SharedReach r;
  r.outer_lengths = lengths(v.leaves[0]);
  r.source = total_context(v.leaves[0], outer);
  if (v.owners >= 0) {
    const Value outer_starts = op1(Op::PlusScan, Leaf::Int, {r.outer_lengths, outer});
    r.starts = op1(Op::BPermute, Leaf::Int, {outer_starts, v.owners, outer, context()});
  }
  return r;
}

Value Flattener::shared_lengths(const Variable& v, const SharedReach& r) {
  if (v.owners < 0) return spread(Leaf::Int, r.outer_lengths, context_);
  return op1(Op::BPermute, Leaf::Int, {r.outer_lengths, v.owners, v.outer_context, context()});
}

Leaves Flattener::shared_primitive(const Primitive& p, const core::Expr& e, const Variable& v) {
  const core::Expr& argument = *e.children[0];
  const Type element = element_type(v.type);
  const Leaves data = slice(v.leaves, 1, v.leaves.size() - 1);
  switch (p.kind) {
    case PrimitiveKind::Length: return {shared_lengths(v, reach(v))};
    case PrimitiveKind::Element: {
      const Value index = expr(*argument.children[1])[0];
      const SharedReach r = reach(v);
      if (options_.argument_checks) check_each_index(index, shared_lengths(v, r), "Sequence reference (a[i]) out of bounds.");
      const Value positions = r.starts >= 0 ? op1(Op::Add, Leaf::Int, {r.starts, index}) : index;
      return gather(element, data, positions, r.source, context());
    }
    case PrimitiveKind::Get: {
      const Leaves wanted = expr(*argument.children[1]);
      const Value wanted_context = total_context(wanted[0], context());
      const SharedReach r = reach(v);
      if (options_.argument_checks) check_indices(wanted[1], wanted[0], shared_lengths(v, r), "Index out of bounds for function ->.");
      Value positions = wanted[1];
      if (r.starts >= 0) positions = op1(Op::Add, Leaf::Int, {positions, op1(Op::Dist, Leaf::Int, {r.starts, wanted[0]})});
      Leaves result = {wanted[0]};
      const Leaves rest = gather(element, data, positions, r.source, wanted_context);
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + e.name + " does not read a shared sequence");
}

}  // namespace nesl::flattening
