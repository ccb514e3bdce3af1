// The MPI vector library: every vector and segment descriptor is block-distributed by element
// over the processes of MPI_COMM_WORLD, each process holding its block in a node-local CVL
// (cvl-cpu). Every process runs the interpreter over the same program (SPMD); control flow and
// scalars are replicated. Run with `mpirun -np N vinterp --backend mpi prog.vcode`.
#pragma once

#include <memory>

#include "cvl/backend.hpp"

namespace cvl {

// Initializes MPI if the process has not (a run without mpirun is one process) and finalizes it
// at exit.
std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options);

}  // namespace cvl
