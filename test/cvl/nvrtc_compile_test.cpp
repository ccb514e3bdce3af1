// The CUDA source vcode generates for superoperators compiles with NVRTC, as cvl-cuda compiles it
// at first use on a GPU: checked here for sm_90 without a GPU (NVRTC needs none).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "cvl_cuda/superop_compiler.hpp"
#include "fused_support.hpp"
#include "vcode/superop_cuda.hpp"

namespace cvl_test {

// This executable tests no backend; fused_support.cpp's helpers need the declaration only.
const std::vector<BackendFactory>& conformance_backends() {
  static const std::vector<BackendFactory> none;
  return none;
}

TEST_CASE("every test superoperator compiles with NVRTC for sm_90", "[cuda][fused][nvrtc]") {
  std::vector<vcode::SuperOp> ops;
  std::uint32_t id = 0;
  for (const std::string& text : fused_definitions()) {
    ops.push_back(superop(text));
    ops.back().id = id++;  // one program, distinct kernel names
  }
  const std::string cubin = cvl::compile_cuda_to_cubin(vcode::cuda_program_source(ops), 90);
  CHECK(cubin.size() > 1000);
  CHECK(cubin.compare(0, 4,
                      "\x7f"
                      "ELF") == 0);
}

TEST_CASE("NVRTC reports a compile error with its log", "[cuda][nvrtc]") {
  CHECK_THROWS_WITH(cvl::compile_cuda_to_cubin("__global__ void k() { undeclared(); }", 90),
                    Catch::Contains("undeclared"));
}

}  // namespace cvl_test
