// superop_cuda_emit FILE.fcode: prints the CUDA program of the file's superoperators
// (vcode::cuda_program_source), for the nvcc compile test of CMakeLists.txt.
#include <cstdio>
#include <exception>

#include "vcode/parser.hpp"
#include "cvl_cuda/superop_cuda.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: superop_cuda_emit FILE.fcode\n");
    return 2;
  }
  try {
    vcode::Program program = vcode::load_program(argv[1]);
    std::fputs(vcode::cuda_program_source(program.superops).c_str(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "superop_cuda_emit: %s\n", e.what());
    return 1;
  }
  return 0;
}
