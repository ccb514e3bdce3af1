// A definition with nested reductions (vcode/superop.hpp) as a sequence of ordinary definitions:
// each nested reduction alone, innermost first, then the rest, which reads their results as
// operands. A backend without a one-pass form of such a definition runs these stages in order.
#pragma once

#include <cstdint>
#include <vector>

#include "vcode/superop.hpp"

namespace vcode {

// Whether a reduction of `op` is not its root.
bool has_nested_reduction(const SuperOp& op);

// One stage: an ordinary definition, and where each of its operands comes from.
struct SuperOpStage {
  SuperOp op;
  // Operand j of `op` is value inputs[j]: operand inputs[j] of the whole definition when that is
  // below its operand count c, else the result of stage inputs[j] - c.
  std::vector<std::uint32_t> inputs;
};

// The stages of a definition check_superop accepts; the last one's result is the definition's.
// A definition without nested reductions is one stage: itself.
std::vector<SuperOpStage> split_stages(const SuperOp& op);

// The expression under node `node` as a definition of its own (its inputs are operand numbers of
// `op`): what an evaluator that treats the rest of the tree itself computes elementwise.
SuperOpStage subtree_definition(const SuperOp& op, std::uint32_t node);

}  // namespace vcode
