// The CUDA source vcode generates for superoperators compiles with NVRTC, as cvl-cuda compiles it
// at first use on a GPU: checked here for sm_90 without a GPU (NVRTC needs none).
#include <catch2/catch.hpp>

#include "cvl_cuda/superop_compiler.hpp"
#include "fused_support.hpp"
#include "nvrtc_library.hpp"
#include "cvl_cuda/superop_cuda.hpp"

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

TEST_CASE("NVRTC is opened at first use, and a library that does not load is named",
          "[cuda][nvrtc]") {
  int major = 0, minor = 0;
  REQUIRE(cvl::nvrtc::library().version(&major, &minor) == NVRTC_SUCCESS);
  CHECK(major >= 11);
  try {
    cvl::nvrtc::load({"libnesl-no-such-nvrtc.so", "/nonexistent/libnvrtc.so"});
    FAIL("load() of missing libraries returned");
  } catch (const cvl::nvrtc::Unavailable& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("NVRTC cannot be loaded"));
    CHECK_THAT(what, Catch::Contains("libnesl-no-such-nvrtc.so: "));
    CHECK_THAT(what, Catch::Contains("/nonexistent/libnvrtc.so: "));
  }
  // A library that loads but is not NVRTC.
  CHECK_THROWS_WITH(cvl::nvrtc::load({"libm.so.6"}),
                    Catch::Contains("libm.so.6: not NVRTC (a call is missing)"));
}

}  // namespace cvl_test
