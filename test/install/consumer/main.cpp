// Runs a small VCODE program through the installed libraries: parse it (NeslBackend::vcode), run
// it on the cpu backend (NeslBackend::vm), then optimize it into FCODE (NeslBackend::fopt) and
// run that; both runs print the final stack, as vinterp does.
#include <cstdio>
#include <exception>

#include "cvl/registry.hpp"
#include "fopt/pipeline.hpp"
#include "vcode/parser.hpp"
#include "vm/machine.hpp"

namespace {

// Sums of squares, of an INT and of a FLOAT vector: (30) and (31.5). fcode-opt fuses each
// square and sum into one superoperator.
const char* const program_text = R"(
FUNC MAIN
CONST INT (1 2 3 4)
CALL SUM_SQUARES_INT
CONST FLOAT (1.5 2.0 -3.0 4.0 0.5)
COPY 1 0
LENGTH FLOAT
MAKE_SEGDES
CPOP 1 1
COPY 1 0
* FLOAT
CPOP 1 1
+_REDUCE FLOAT
RET

FUNC SUM_SQUARES_INT
COPY 1 0
LENGTH INT
MAKE_SEGDES
CPOP 1 1
COPY 1 0
* INT
CPOP 1 1
+_REDUCE INT
RET
)";

int run(const vcode::Program& program) {
  cvl::BackendOptions options;
  options.threads = 1;  // the exact, sequential mode
  const auto backend = cvl::make_backend("cpu", options);
  if (!backend) {
    std::fprintf(stderr, "consumer: no cpu backend\n");
    return 1;
  }
  vm::Machine machine(program, *backend, vm::MachineOptions{});
  const int status = machine.run();
  std::fflush(stdout);
  return status;
}

}  // namespace

int main() {
  try {
    const vcode::Program program = vcode::parse_program(program_text, "consumer.vcode");
    std::printf("vcode:\n");
    std::fflush(stdout);
    if (const int status = run(program); status != 0) return status;

    const fopt::PipelineResult optimized = fopt::optimize(program);
    std::printf("fcode (%zu superoperators):\n", optimized.program.superops.size());
    std::fflush(stdout);
    return run(optimized.program);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
