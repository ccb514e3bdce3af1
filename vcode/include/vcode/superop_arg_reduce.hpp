// NESL's max_index and min_index as one superoperator with a nested reduction
// (vcode/superop.hpp), in the shape an evaluator can run in one pass:
//
//   (F INT (SELECT INT (= T (DIST T (E T x $s) $s) x) (INDEX a b $s) o) $s)
//
// E is MAX_REDUCE or MIN_REDUCE on T (INT or FLOAT), F is MIN_REDUCE or MAX_REDUCE on INT, the two
// x are equal expressions (either may come first in the =), o is (DIST INT leaf $s) or an INT
// constant, and nothing in x can trap. Per segment: the fold F of a + b * pos over the positions
// pos whose x equals the segment's extreme, and of o wherever one does not. For INT x, and for
// FLOAT x without a NaN in the segment, the positions equal to the extreme are those equal to the
// running extreme, so one pass finds them; a segment with a NaN needs the extreme first.
#pragma once

#include <cstdint>
#include <optional>

#include "vcode/superop.hpp"

namespace vcode {

struct ArgReduceShape {
  Op extreme = Op::MaxReduce;  // E: the nested reduction
  TypeKeyword type = TypeKeyword::Float;  // T
  std::uint32_t values = 0;    // x: the node under E
  Op fold = Op::MinReduce;     // F: the root
  std::uint32_t index = 0;     // the INDEX node
  std::uint32_t otherwise = 0; // o
  std::uint32_t segdes = 0;    // the operand number of $s
};

// The shape of a definition check_superop accepts, if it has it.
std::optional<ArgReduceShape> arg_reduce_shape(const SuperOp& op);

}  // namespace vcode
