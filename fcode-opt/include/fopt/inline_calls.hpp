// Pass "inline": replaces calls of non-recursive functions by their bodies, bottom-up over the
// call graph (callees are expanded first), for small callees and callees called once; then drops
// the functions nothing reaches any more.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void inline_calls(Module& module, const PassOptions& options);

}  // namespace fopt
