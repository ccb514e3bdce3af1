// The backends of this build. Each vector library defines one entry per backend it provides
// (name, factory, how a launcher tells a process its rank, its own options) and registers it with
// one CMake line, `nesl_add_backend(...)` (cmake/NeslBackends.cmake), which also gives the
// backend its program tests. Nothing outside the backend's folder names it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cvl/backend.hpp"

namespace cvl {

struct BackendEntry {
  std::string_view name;  // `--backend NAME`
  std::unique_ptr<Backend> (*make)(const BackendOptions& options) = nullptr;
  // The environment variables in which a launcher (mpirun) tells each process its rank, when
  // the backend runs as several processes: before the backend exists, only rank 0 prints.
  std::span<const std::string_view> rank_variables = {};
  // The vinterp options only this backend takes, without their dashes (others refuse them).
  std::span<const std::string_view> own_options = {};
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

}  // namespace cvl
