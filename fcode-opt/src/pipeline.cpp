#include "fopt/pipeline.hpp"

#include <stdexcept>

#include "fopt/cleanup.hpp"
#include "fopt/fuse.hpp"
#include "fopt/hoist.hpp"
#include "fopt/inline_calls.hpp"
#include "fopt/ir_printer.hpp"
#include "fopt/ir_verify.hpp"
#include "fopt/lift.hpp"
#include "fopt/lower.hpp"
#include "fopt/var_types.hpp"
#include "vcode/printer.hpp"

namespace fopt {

namespace {

const Pass passes[] = {
    {"inline", "replace calls of small or once-called non-recursive functions by their bodies",
     inline_calls},
    {"cleanup", "share identical pure computations, drop unused bindings and parameters", cleanup},
    {"hoist", "move scalar checks repeated in IF branches before the IF, so cleanup can share them",
     hoist},
    {"fuse",
     "turn connected elementwise operations (and the reduction or scan they feed) into "
     "superoperators",
     fuse},
};

void after(const std::string& name, const Module& module, const PipelineOptions& options) {
#ifndef NDEBUG
  const bool verify = true;
#else
  const bool verify = options.verify;
#endif
  if (verify) {
    auto problems = verify_module(module);
    if (!problems.empty()) {
      std::string text = "IR broken after pass " + name + ":";
      for (const auto& p : problems) text += "\n  " + p;
      throw std::logic_error(text);
    }
  }
  if (options.dump && options.dump_after &&
      (*options.dump_after == name || *options.dump_after == "all")) {
    *options.dump << "=== after " << name << " ===\n";
    print_module(*options.dump, module);
  }
}

}  // namespace

std::span<const Pass> registered_passes() { return passes; }

std::vector<std::string> default_passes() {
  return {"inline", "cleanup", "hoist", "cleanup", "fuse", "cleanup"};
}

PipelineResult optimize(const vcode::Program& input, const PipelineOptions& options) {
  std::vector<const Pass*> chosen;
  for (const std::string& name : options.passes) {
    const Pass* found = nullptr;
    for (const Pass& p : passes)
      if (p.name == name) found = &p;
    if (!found) {
      std::string known;
      for (const Pass& p : passes)
        known += std::string(known.empty() ? "" : ", ") + std::string(p.name);
      throw std::runtime_error("unknown pass \"" + name + "\" (passes: " + known + ")");
    }
    chosen.push_back(found);
  }
  PipelineResult result;
  result.module = lift(input);
  after("lift", result.module, options);
  for (const Pass* pass : chosen) {
    pass->run(result.module, options.pass_options);
    infer_var_types(result.module);
    after(std::string(pass->name), result.module, options);
  }
  result.program = lower(result.module);
  if (options.dump && options.dump_after &&
      (*options.dump_after == "lower" || *options.dump_after == "all")) {
    *options.dump << "=== after lower ===\n";
    vcode::print_program(*options.dump, result.program);
  }
  return result;
}

}  // namespace fopt
