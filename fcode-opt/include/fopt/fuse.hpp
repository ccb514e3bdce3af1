// Pass "fuse": turns each connected group of elementwise operations whose operands provably
// share one length (constants and DIST/INDEX of per-segment values included) into one
// superoperator, and fuses an elementwise producer into the reduction or scan consuming it.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void fuse(Module& module, const PassOptions& options);

}  // namespace fopt
