// The backends cvl_conformance_cuda_emulated tests: the host emulation of cvl-cuda with every
// operation on the "device" (host threshold 0) and with its default threshold (small operations
// on the host through cvl-cpu, large ones on the device), each with the device run as each
// operation is queued and, with --emulate-async's seeds, on a thread of its own, late. All
// synchronize after each operation, so a fault is raised by the operation that caused it, as the
// error tests expect (deferred reporting has its own test in cuda_emulated_test.cpp). One also
// leaves long results pending until read, as vinterp does (cvl-cuda/src/pending_expression.hpp).
#include "cvl_cuda/cvl_cuda.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

BackendFactory emulated(std::string name, long long threshold, std::uint64_t async_seed,
                        bool pending = false) {
  return {std::move(name), [threshold, async_seed, pending](cvl::FloatRankOrder order) {
            cvl::BackendOptions options{.threads = 1, .float_rank = order};
            options.host_threshold = threshold;
            options.sync_each_op = true;
            options.emulate_async_seed = async_seed;
            options.lazy_elementwise = pending;
            return cvl::make_cuda_emulated_backend(options);
          }};
}

}  // namespace

const std::vector<BackendFactory>& conformance_backends() {
  static const std::vector<BackendFactory> backends = {
      emulated("cuda-emulated host-threshold=0", 0, 0),
      emulated("cuda-emulated default threshold", -1, 0),
      emulated("cuda-emulated --emulate-async 1 host-threshold=0", 0, 1),
      emulated("cuda-emulated --emulate-async 2 default threshold", -1, 2),
      emulated("cuda-emulated --emulate-async 3 host-threshold=0, pending results", 0, 3, true),
  };
  return backends;
}

}  // namespace cvl_test
