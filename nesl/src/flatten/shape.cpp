#include "flatten/flattener.hpp"

#include "flatten/constants.hpp"
#include "nesl/diagnostics.hpp"

namespace nesl::flattening {

Leaves Flattener::shape_primitive(const Primitive& p, const Arguments& args) {
  switch (p.kind) {
    case PrimitiveKind::Length: return {lengths(args[0][0])};
    case PrimitiveKind::Dist: {
      // The classic checked no length of dist; a negative one stopped its VM, and ours, in the
      // VM's words rather than NESL's.
      if (options_.argument_checks) {
        check(op1(Op::Less, Leaf::Int, {args[1][0], everywhere(zero_of(Leaf::Int))}),
              "Negative length in function DIST.");
      }
      Value segdes = make_segdes(args[1][0]);
      Leaves result = {segdes};
      Leaves copies = replicate(args.types[0], args[0], segdes);
      result.insert(result.end(), copies.begin(), copies.end());
      return result;
    }
    case PrimitiveKind::Range: {
      Value start = args[0][0], end = args[1][0], stride = args[2][0];
      if (options_.argument_checks) {
        Value backwards = op1(Op::Less, Leaf::Int, {end, start});
        Value not_positive = op1(Op::LessEq, Leaf::Int, {stride, everywhere(zero_of(Leaf::Int))});
        check(op1(Op::Or, Leaf::Bool, {backwards, not_positive}),
              "In [s:e:l], e must be >= to s, and l must be positive.");
      }
      Value span = op1(Op::Sub, Leaf::Int, {op1(Op::Add, Leaf::Int, {op1(Op::Sub, Leaf::Int, {end, start}), stride}),
                                 everywhere(scalar(Leaf::Int, 1))});
      Value count = op1(Op::Div, Leaf::Int, {span, stride});
      Value segdes = make_segdes(count);
      return {segdes, op1(Op::Index, {start, stride, segdes})};
    }
    case PrimitiveKind::Pack: {
      Value segdes = args[0][0];
      Value flags = args[1][1];
      PackCounts counts{segdes};
      const Leaves rest = pack_value(element_type(args.types[0]), slice(args[0], 1, args[0].size() - 1), flags,
                                     total_context(segdes, context()), &counts);
      Leaves result = {counts.kept};
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    case PrimitiveKind::Flatten: {
      Value totals = op1(Op::PlusReduce, Leaf::Int, {lengths(args[0][1]), args[0][0]});
      Leaves result = {make_segdes(totals)};
      Leaves rest = slice(args[0], 2, args[0].size() - 2);
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    case PrimitiveKind::Partition: {
      Value outer = context();
      Value wanted = args[1][0];
      Value sizes = args[1][1];
      if (options_.argument_checks) {
        Value sums = op1(Op::PlusReduce, Leaf::Int, {sizes, wanted});
        Value mismatch = op1(Op::NotEqual, Leaf::Int, {sums, lengths(args[0][0])});
        check(mismatch, "Length mismatch in function PARTITION.");
      }
      (void)outer;
      Leaves result = {wanted, make_segdes(sizes)};
      Leaves rest = slice(args[0], 1, args[0].size() - 1);
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    case PrimitiveKind::ZeroLike: return zero_value(element_type(args.types[0]));
    case PrimitiveKind::Append: {
      Value outer = context();
      Value left_lengths = lengths(args[0][0]);
      Value right_lengths = lengths(args[1][0]);
      Value sizes = op1(Op::Add, Leaf::Int, {left_lengths, right_lengths});
      Value segdes = make_segdes(sizes);
      Value starts = op1(Op::PlusScan, Leaf::Int, {sizes, outer});
      Value right_starts = op1(Op::Add, Leaf::Int, {starts, left_lengths});
      Value ones = everywhere(scalar(Leaf::Int, 1));
      std::vector<Part> parts = {
          {slice(args[0], 1, args[0].size() - 1), op1(Op::Index, {starts, ones, args[0][0]}),
           total_context(args[0][0], outer)},
          {slice(args[1], 1, args[1].size() - 1), op1(Op::Index, {right_starts, ones, args[1][0]}),
           total_context(args[1][0], outer)}};
      Leaves result = {segdes};
      Leaves rest = merge(element_type(args.types[0]), parts, total_context(segdes, outer));
      result.insert(result.end(), rest.begin(), rest.end());
      return result;
    }
    default: break;
  }
  throw CompileError({}, "internal error: " + args.name + " is not a shape primitive");
}

}  // namespace nesl::flattening
