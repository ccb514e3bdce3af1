// The command-line options of cvl-cuda's backends (cvl/backend_option_group.hpp): plain C++,
// built in every build, so that vinterp takes them whether or not this one has the backends.
#pragma once

#include "cvl/backend_option_group.hpp"

namespace cvl {

// --sync and --host-threshold, which both GPU backends take and others ignore:
// BackendOptions::sync_each_op, host_threshold.
extern const BackendOptionGroup cuda_option_group;
// --emulate-async, cuda-emulated's alone (others refuse it): BackendOptions::emulate_async_seed.
extern const BackendOptionGroup cuda_emulation_option_group;

}  // namespace cvl
