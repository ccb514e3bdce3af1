// The backends compiled into this build. A new backend adds one line to each function.
#include "cvl/registry.hpp"

#include "cvl/checking_backend.hpp"

#include "cvl_cpu/cvl_cpu.hpp"
#if defined(NESL_HAVE_CUDA) || defined(NESL_HAVE_CUDA_EMULATION)
#include "cvl_cuda/cvl_cuda.hpp"
#endif
#ifdef NESL_HAVE_MPI
#include "cvl_mpi/cvl_mpi.hpp"
#endif

namespace cvl {

namespace {

std::unique_ptr<Backend> make_unchecked(std::string_view name, const BackendOptions& options) {
  if (name == "cpu") return make_cpu_backend(options);
#ifdef NESL_HAVE_CUDA
  if (name == "cuda") return make_cuda_backend(options);
#endif
#ifdef NESL_HAVE_CUDA_EMULATION
  if (name == "cuda-emulated") return make_cuda_emulated_backend(options);
#endif
#ifdef NESL_HAVE_MPI
  if (name == "mpi") return make_mpi_backend(options);
#endif
  return nullptr;
}

}  // namespace

std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options) {
  std::unique_ptr<Backend> backend = make_unchecked(name, options);
#ifndef NDEBUG
  // Debug builds check every call against the shape contract (cvl/checking_backend.hpp).
  if (backend) backend = checked(std::move(backend));
#endif
  return backend;
}

std::vector<std::string> available_backends() {
  std::vector<std::string> names{"cpu"};
#ifdef NESL_HAVE_CUDA
  names.push_back("cuda");
#endif
#ifdef NESL_HAVE_CUDA_EMULATION
  names.push_back("cuda-emulated");
#endif
#ifdef NESL_HAVE_MPI
  names.push_back("mpi");
#endif
  return names;
}

}  // namespace cvl
