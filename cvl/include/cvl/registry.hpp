// The backends of this build. Each vector library defines one entry per backend it provides
// (name, factory, how a launcher tells a process its rank, the groups of options it takes) and
// registers it with one CMake line, `nesl_add_backend(...)` (cmake/NeslBackends.cmake), which also
// gives the backend its program tests. Nothing outside the backend's folder names it. Its option
// groups (cvl/backend_option_group.hpp) are registered apart, `nesl_add_backend_options(...)`, in
// every build: a command line means the same with the backend built or not.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cvl/backend.hpp"
#include "cvl/backend_option_group.hpp"

namespace cvl {

struct BackendEntry {
  std::string_view name;  // `--backend NAME`
  std::unique_ptr<Backend> (*make)(const BackendOptions& options) = nullptr;
  // The environment variables in which a launcher (mpirun) tells each process its rank, when
  // the backend runs as several processes: before the backend exists, only rank 0 prints.
  std::span<const std::string_view> rank_variables = {};
  // The groups of command-line options this backend takes (besides those every backend shares).
  std::span<const BackendOptionGroup* const> option_groups = {};
  // A line of its own for `vinterp --version` after the name (null: none).
  std::string (*version_note)() = nullptr;
};

// This build's backends, in the order they were registered.
std::span<const BackendEntry* const> registered_backends();
// Adds a backend to the registry of this process (a program of tests does, for a backend built
// for its tests only: nesl_add_backend(... TEST_ONLY)). `entry` must outlive every lookup.
void register_backend(const BackendEntry& entry);
// The entry called `name`, or null.
const BackendEntry* find_backend(std::string_view name);
// The backend called `name`, or null if this build does not have it. In debug builds it checks
// every call against the shape contract (cvl/checking_backend.hpp).
std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options);
// Names of this build's backends.
std::vector<std::string> available_backends();
// Every backend folder's groups of options, whether this build has its backends or not, in the
// order they were registered.
std::span<const BackendOptionGroup* const> backend_option_groups();

}  // namespace cvl
