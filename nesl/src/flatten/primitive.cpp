#include "flatten/flattener.hpp"

#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

// A primitive's argument computed and split into its components, then the rule of its family.
Leaves Flattener::primitive(const core::Expr& e) {
  const Primitive& p = *find_primitive(e.name);
  if (const std::optional<Variable> shared = shared_operand(p, e)) return shared_primitive(p, e, *shared);
  const core::Expr& argument = *e.children[0];
  const Leaves all = expr(argument);
  Arguments args;
  args.name = e.name;
  args.types = components(argument.type, p.arity == 0 ? 1 : p.arity);
  std::size_t at = 0;
  for (const Type& type : args.types) {
    const std::size_t n = slots(type);
    args.values.push_back(slice(all, at, n));
    at += n;
  }
  switch (p.kind) {
    case PrimitiveKind::Elementwise:
    case PrimitiveKind::Complement:
    case PrimitiveKind::CompareToZero:
    case PrimitiveKind::Negate:
    case PrimitiveKind::Abs:
    case PrimitiveKind::Identity:
    case PrimitiveKind::CheckedDivide:
    case PrimitiveKind::CheckedSqrt:
    case PrimitiveKind::Constant:
    case PrimitiveKind::OneLike:
    case PrimitiveKind::ArgCheck:
    case PrimitiveKind::Rand:
    case PrimitiveKind::Timer: return scalar_primitive(p, args);
    case PrimitiveKind::Reduce:
    case PrimitiveKind::Count:
    case PrimitiveKind::Scan: return reduction_primitive(p, args);
    case PrimitiveKind::Element:
    case PrimitiveKind::Get:
    case PrimitiveKind::Put:
    case PrimitiveKind::CondPut:
    case PrimitiveKind::FlagPermute:
    case PrimitiveKind::Replace:
    case PrimitiveKind::Permute: return permute_primitive(p, args);
    case PrimitiveKind::Length:
    case PrimitiveKind::Dist:
    case PrimitiveKind::Range:
    case PrimitiveKind::Pack:
    case PrimitiveKind::Flatten:
    case PrimitiveKind::Partition:
    case PrimitiveKind::Append:
    case PrimitiveKind::ZeroLike: return shape_primitive(p, args);
    case PrimitiveKind::Print:
    case PrimitiveKind::WriteString:
    case PrimitiveKind::ReadLine:
    case PrimitiveKind::WriteObject:
    case PrimitiveKind::ReadObject:
    case PrimitiveKind::Spawn:
    case PrimitiveKind::OpenFile:
    case PrimitiveKind::CloseFile:
    case PrimitiveKind::ReadString:
    case PrimitiveKind::UserError: return io_primitive(p, args);
  }
  throw CompileError({}, "internal error: unknown primitive " + e.name);
}

// Elements that are base values or tuples of them: one leaf per component, no segdes.
void Flattener::require_scalar_leaves(const Type& sequence, const std::string& name) {
  for (Leaf leaf : leaves_of(element_type(sequence))) {
    if (leaf == Leaf::Segdes) {
      throw CompileError({}, "not supported yet: " + name + " of a sequence of " +
                                 print_type(element_type(sequence)));
    }
  }
}

void Flattener::require_flat(const Type& sequence, const std::string& name) {
  if (resolve(element_type(sequence))->kind != TypeNode::Kind::Base) {
    throw CompileError({}, "not supported yet: " + name + " of a sequence of " +
                               print_type(element_type(sequence)));
  }
}

}  // namespace nesl::flattening
