// cvl-cuda's command-line options (cvl_cuda/command_line_options.hpp).
#include "cvl_cuda/command_line_options.hpp"

namespace cvl {
namespace {

constexpr BackendOption device_options[] = {
    {.name = "sync",
     .description = "GPU backends: wait for the device after every operation (a fault stops the "
                    "run at its op)"},
    {.name = "host-threshold",
     .argument = OptionArgument::Integer,
     .argument_name = "N",
     .description = "GPU backends: ops whose inputs are on the host and at most N elements\n"
                    "run on the host (0 = everything on the device; default: the backend's)"},
};

void apply_device_options(const GivenOptions& given, BackendOptions& options) {
  options.sync_each_op = given.has("sync");
  if (given.has("host-threshold")) {
    options.host_threshold = given.integer("host-threshold");
    if (options.host_threshold < 0) throw OptionError("--host-threshold must be 0 or more");
  }
}

constexpr BackendOption emulation_options[] = {
    {.name = "emulate-async",
     .argument = OptionArgument::Unsigned,
     .argument_name = "SEED",
     .description = "cuda-emulated: the device runs on a thread of its own, each operation\n"
                    "late by a delay drawn from SEED, new memory poisoned (0: at once)"},
};

void apply_emulation_options(const GivenOptions& given, BackendOptions& options) {
  if (given.has("emulate-async"))
    options.emulate_async_seed = given.unsigned_integer("emulate-async");
}

}  // namespace

const BackendOptionGroup cuda_option_group{.options = device_options,
                                           .apply = &apply_device_options};
const BackendOptionGroup cuda_emulation_option_group{
    .options = emulation_options, .refused_by_others = true, .apply = &apply_emulation_options};

}  // namespace cvl
