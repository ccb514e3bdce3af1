#include "optimize_in_process.hpp"

#include <chrono>

#include "fopt/pipeline.hpp"

namespace vinterp {

OptimizeResult optimize_in_process(vcode::Program& program) {
  if (!program.superops.empty()) return {0.0, program.superops.size()};
  const auto start = std::chrono::steady_clock::now();
  fopt::PipelineResult result = fopt::optimize(program);
  result.program.file = program.file;  // errors and traces name the file the user gave
  program = std::move(result.program);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return {took.count(), program.superops.size()};
}

}  // namespace vinterp
