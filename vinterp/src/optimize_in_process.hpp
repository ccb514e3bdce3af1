// `vinterp -O`: fcode-opt's default pipeline run in the interpreter's own process, so that a
// toolchain that only knows `vinterp FILE` gets fused code (fcode-opt/README.md).
#pragma once

#include <cstddef>

#include "vcode/program.hpp"

namespace vinterp {

struct OptimizeResult {
  double seconds = 0;             // the pipeline's wall time
  std::size_t superoperators = 0; // in the optimized program
};

// Replaces `program` (VCODE) by the FCODE fcode-opt would write for it. A program that already
// defines superoperators (FCODE) is left as it is. Throws what fopt::optimize throws.
OptimizeResult optimize_in_process(vcode::Program& program);

}  // namespace vinterp
