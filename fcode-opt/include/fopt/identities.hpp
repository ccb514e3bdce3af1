// Pass "identities": operations that provably return one of their operands are read as that
// operand. NESL builds a nested pair of sequences (quicksort's [lesser, greater]) through segments
// of one element: each value DISTributed over a descriptor of ones, its positions INDEXed over that
// descriptor, and a PERMUTE by each element's own position, with MAKE_SEGDES of LENGTHS and
// LENGTHS of MAKE_SEGDES around them. Here:
//   LENGTHS (MAKE_SEGDES x) = x            MAKE_SEGDES (LENGTHS sd) = sd
//   DIST T v (MAKE_SEGDES ones) = v        INDEX a b (MAKE_SEGDES ones) = a
//   * INT ones b = b                       PERMUTE T v (INDEX zeros ones sd) sd = v
// where `ones` and `zeros` are INT vectors known to hold only 1 or only 0 (a constant, or a DIST of
// one). Each applies only where the operation cannot fail: its operands have the types it needs
// and the length facts prove the lengths it checks. The statements go, and with them the
// descriptors of ones nothing else reads, so no descriptor as long as the vector is made.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void identities(Module& module, const PassOptions& options);

}  // namespace fopt
