// The backends cvl_conformance_cuda tests: the real CUDA backend, everything on the device and
// with the default host threshold. Without a usable GPU the list is empty and the suite reports
// itself skipped (main.cpp, exit 77).
#include <iostream>

#include "cvl_cuda/cvl_cuda.hpp"
#include "support.hpp"

namespace cvl_test {

const std::vector<BackendFactory>& conformance_backends() {
  static const std::vector<BackendFactory> backends = [] {
    std::vector<BackendFactory> list;
    try {
      cvl::make_cuda_backend({});
    } catch (const cvl::DeviceError& e) {
      std::cout << e.what() << "\n";
      return list;
    }
    list.push_back({"cuda host-threshold=0", [](cvl::FloatRankOrder order) {
                      return cvl::make_cuda_backend({1, order, 0, 0, true});
                    },
                    /*device_libm=*/true});
    list.push_back({"cuda default threshold", [](cvl::FloatRankOrder order) {
                      return cvl::make_cuda_backend({1, order, 0, -1, true});
                    },
                    /*device_libm=*/true});
    return list;
  }();
  return backends;
}

}  // namespace cvl_test
