#include "flatten/flattener.hpp"

#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

Leaves Flattener::reduction_primitive(const Primitive& p, const Arguments& args) {
  switch (p.kind) {
    case PrimitiveKind::Reduce: {
      require_flat(args.types[0], args.name);
      Leaf leaf = leaf_of(args[0][1]);
      return {op1(p.op, leaf, {args[0][1], args[0][0]})};
    }
    case PrimitiveKind::Count: {
      Value as_int = op1(Op::BoolToInt, {args[0][1]});
      return {op1(Op::PlusReduce, Leaf::Int, {as_int, args[0][0]})};
    }
    case PrimitiveKind::Scan: {
      require_flat(args.types[0], args.name);
      Leaf leaf = leaf_of(args[0][1]);
      // RANK of FLOATs gives INT positions; the scans keep their operand's type.
      return {args[0][0], op1(p.op, leaf, {args[0][1], args[0][0]})};
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + args.name + " is not a reduction primitive");
}

}  // namespace nesl::flattening
