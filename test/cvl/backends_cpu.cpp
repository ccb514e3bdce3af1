// The backends cvl_conformance tests: cvl-cpu sequential (the reference itself), with threads,
// and in the fast mode (vectorized transcendental functions, within 2 ulps of the C library's).
// Another backend's suite is this file with its own factory lines.
#include "cvl_cpu/cvl_cpu.hpp"
#include "support.hpp"

namespace cvl_test {

const std::vector<BackendFactory>& conformance_backends() {
  static const std::vector<BackendFactory> backends = {
      {"cpu threads=1",
       [](cvl::FloatRankOrder order) {
         return cvl::make_cpu_backend({1, order});
       }},
      {"cpu threads=2",
       [](cvl::FloatRankOrder order) {
         return cvl::make_cpu_backend({2, order});
       }},
      // more threads than this machine has cores: uneven blocks, oversubscription
      {"cpu threads=3",
       [](cvl::FloatRankOrder order) {
         return cvl::make_cpu_backend({3, order});
       }},
      // elementwise results and gathers left pending until read (vinterp's default)
      {"cpu threads=1, pending results",
       [](cvl::FloatRankOrder order) {
         cvl::BackendOptions options{1, order};
         options.lazy_elementwise = true;
         return cvl::make_cpu_backend(options);
       }},
      {"cpu threads=2 --math fast",
       [](cvl::FloatRankOrder order) {
         cvl::BackendOptions options{2, order};
         options.fast_math = true;
         return cvl::make_cpu_backend(options);
       },
       /*device_libm=*/true},
  };
  return backends;
}

}  // namespace cvl_test
