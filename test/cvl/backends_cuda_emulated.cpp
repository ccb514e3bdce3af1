// The backends cvl_conformance_cuda_emulated tests: the host emulation of cvl-cuda with every
// operation on the "device" (host threshold 0) and with its default threshold (small operations
// on the host through cvl-cpu, large ones on the device). Both synchronize after each operation,
// so a fault is raised by the operation that caused it, as the error tests expect (deferred
// reporting has its own test in cuda_emulated_test.cpp).
#include "cvl_cuda/cvl_cuda.hpp"
#include "support.hpp"

namespace cvl_test {

const std::vector<BackendFactory>& conformance_backends() {
  static const std::vector<BackendFactory> backends = {
      {"cuda-emulated host-threshold=0",
       [](cvl::FloatRankOrder order) {
         return cvl::make_cuda_emulated_backend({1, order, 0, 0, true});
       }},
      {"cuda-emulated default threshold",
       [](cvl::FloatRankOrder order) {
         return cvl::make_cuda_emulated_backend({1, order, 0, -1, true});
       }},
  };
  return backends;
}

}  // namespace cvl_test
