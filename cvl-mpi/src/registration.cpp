// cvl-mpi's entry in the backend registry (cvl/registry.hpp).
#include "cvl/registry.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "cvl_mpi/cvl_mpi.hpp"

namespace cvl {
namespace {

// Where Open MPI, PMIx and other PMI launchers tell a process its rank.
constexpr std::string_view launcher_ranks[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
// Each process's blocks are cvl-cpu's.
constexpr const BackendOptionGroup* option_groups[] = {&cpu_option_group};

}  // namespace

extern const BackendEntry mpi_backend_entry;
const BackendEntry mpi_backend_entry{.name = "mpi", .make = &make_mpi_backend,
                                     .rank_variables = launcher_ranks,
                                     .option_groups = option_groups};

}  // namespace cvl
