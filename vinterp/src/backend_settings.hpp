// The options of the backend a run makes, from what its user chose: the one policy that vinterp's
// command line and nesl's in-process runs (nesl/src/vm_run.cpp) share.
#pragma once

#include <cstdint>
#include <string>

#include "cvl/backend.hpp"
#include "cvl/backend_option_group.hpp"

namespace vinterp {

// What a user chose for the backend: the settings every backend shares, and the values given
// for the backends' own options (cvl/backend_option_group.hpp), by name.
struct BackendSettings {
  std::string backend = "cpu";
  int threads = 0;  // 0: all cores; 1: sequential, exact
  cvl::FloatRankOrder float_rank = cvl::FloatRankOrder::Correct;
  int device = 0;                // vinterp -0..-9
  std::uint64_t max_memory = 0;  // 0: the backend's default
  cvl::GivenOptions given;
};

// The shared settings as given, then every option group's BackendOptions (cvl/registry.hpp,
// backend_option_groups()), from its options given or its defaults. Throws cvl::OptionError for
// a value an option does not take, or for an option of a group that `settings.backend` does not
// take and others refuse.
cvl::BackendOptions backend_options(const BackendSettings& settings);

}  // namespace vinterp
