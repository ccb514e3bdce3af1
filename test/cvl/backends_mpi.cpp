// The backends cvl_conformance_mpi tests: cvl-mpi over however many processes mpirun started
// (CTest runs the suite at 1 to 4, test/cvl/CMakeLists.txt), each block on sequential cvl-cpu.
// Every process runs every test in the same order; only the first one reports.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cvl_mpi/cvl_mpi.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

// Processes other than the first print nothing (their results are the same: every value a test
// compares is read back on every process).
bool quiet_unless_first() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank && std::string(rank) != "0") return std::freopen("/dev/null", "w", stdout) != nullptr;
  return false;
}

}  // namespace

const std::vector<BackendFactory>& conformance_backends() {
  static const bool quiet = quiet_unless_first();
  (void)quiet;
  static const std::vector<BackendFactory> backends = {
      {"mpi threads=1",
       [](cvl::FloatRankOrder order) {
         return cvl::make_mpi_backend({1, order});
       }},
      // Every MAKE_SEGDES by the general path, which the default takes from 65,537 segments on.
      {"mpi threads=1, descriptors from each process's own lengths",
       [](cvl::FloatRankOrder order) {
         cvl::BackendOptions options{1, order};
         options.all_lengths_max = 0;
         return cvl::make_mpi_backend(options);
       }},
      // Each block's elementwise results and gathers left pending until read (vinterp's default).
      {"mpi threads=1, pending results",
       [](cvl::FloatRankOrder order) {
         cvl::BackendOptions options{1, order};
         options.lazy_elementwise = true;
         return cvl::make_mpi_backend(options);
       }},
  };
  return backends;
}

}  // namespace cvl_test
