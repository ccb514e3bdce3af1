// Pass "hoist": moves scalar elementwise computations that cannot fail out of IF branches when
// the same computation occurs elsewhere in the function, so that cleanup can share them (the
// NESL compiler repeats the same length checks inside the branches of every check).
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void hoist(Module& module, const PassOptions& options);

}  // namespace fopt
