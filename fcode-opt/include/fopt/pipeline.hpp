// The optimizer's pipeline: lift, then a list of passes over the let-form IR, then lower; with
// IR dumps after any pass and IR verification after every pass (debug builds, or on request).
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "fopt/ir.hpp"
#include "fopt/pass.hpp"
#include "vcode/program.hpp"

namespace fopt {

// The passes that can be listed in --passes, in their default order.
std::span<const Pass> registered_passes();
std::vector<std::string> default_passes();
// What --dump-after takes: "lift", a registered pass, "lower", or "all".
std::vector<std::string> dump_after_names();

struct PipelineOptions {
  std::vector<std::string> passes = default_passes();
  std::optional<std::string> dump_after;  // a pass name (lift and lower included) or "all"
  std::ostream* dump = nullptr;
  bool verify = false;  // verify the IR after every pass (always on in debug builds)
  PassOptions pass_options;
};

struct PipelineResult {
  vcode::Program program;  // the FCODE, linked
  Module module;           // the IR after the last pass
};

// Throws std::runtime_error, listing the known names, for an unknown pass in `passes` or
// `dump_after` (so that a misspelt --dump-after is not silently ignored).
void check_options(const PipelineOptions& options);

// Throws as check_options does, and std::logic_error (naming the pass) when the IR is found
// broken after a pass.
PipelineResult optimize(const vcode::Program& input, const PipelineOptions& options = {});

}  // namespace fopt
