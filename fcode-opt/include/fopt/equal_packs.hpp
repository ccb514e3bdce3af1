// Pass "equal-packs": the INT elements of a segment equal to that segment's value `p` are all
// `p`. NESL's three-way split (quicksort's `{e in s | e == pivot}`) packs them out of the whole
// vector: a pass writing the flags, a pass reading the flags and the vector. Their count (a
// reduction that fuse joins to the comparison: one read of the vector, nothing written) and `p`
// DISTributed over it give the same vector and descriptor. INT only: FLOAT equality holds
// between -0.0 and 0.0, which print differently.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void equal_packs(Module& module, const PassOptions& options);

}  // namespace fopt
