// Pass "cleanup": folds INT constant arithmetic, shares identical pure computations (CSE),
// drops bindings nobody uses and
// parameters no body reads. Effects (I/O, RAND, timers, EXIT, calls) and ops that could fail
// at run time are never dropped or moved.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void cleanup(Module& module, const PassOptions& options);

}  // namespace fopt
