// Pass "ranges": NESL guards a FLOAT division or logarithm with a count of the elements that
// would fail it (+_REDUCE INT of B_TO_I of a comparison with 0), a whole pass over the vector at
// run time. Where an interval analysis of the FLOAT values proves the comparison false at every
// element (black-scholes' 1 + 0.2316419 |d| against 0), that count is 0 in every segment: it
// becomes LENGTHS minus itself, and cleanup drops the comparison no one reads any more.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void ranges(Module& module, const PassOptions& options);

}  // namespace fopt
