// Pass "selects": NESL compiles a conditional that changes only the elements where a flag holds
// (black-scholes' `if d < 0 then 1 - w else w`) into a packed update: the flagged positions
// (PACK of INDEX 0 1), the values there (BPERMUTE), an elementwise change of them, and the
// changed values put back over the vector (DPERMUTE), with a check of the positions that cannot
// fail. Where the change cannot trap and every length check involved is known to hold, this
// becomes SELECT flags (change of the whole vector) vector: one elementwise pass that fuse can
// join to its neighbours, instead of six passes and two vectors of positions. The values are the
// same bits: each element goes through the same operations.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void selects(Module& module, const PassOptions& options);

}  // namespace fopt
