#include "fopt/pipeline.hpp"

#include <algorithm>
#include <stdexcept>

#include "fopt/cleanup.hpp"
#include "fopt/equal_packs.hpp"
#include "fopt/fuse.hpp"
#include "fopt/hoist.hpp"
#include "fopt/identities.hpp"
#include "fopt/inline_calls.hpp"
#include "fopt/ir_printer.hpp"
#include "fopt/ir_verify.hpp"
#include "fopt/lift.hpp"
#include "fopt/lower.hpp"
#include "fopt/nest_reductions.hpp"
#include "fopt/ranges.hpp"
#include "fopt/selects.hpp"
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
    {"ranges",
     "replace counts of elements failing a FLOAT check that interval analysis proves false "
     "everywhere by zeros",
     ranges},
    {"selects",
     "replace a packed update of the flagged elements (PACK, BPERMUTE, an elementwise change, "
     "DPERMUTE) by SELECT of the change over the whole vector",
     selects},
    {"equal-packs",
     "replace a PACK of the INT elements equal to their segment's value by that value DISTributed "
     "over their count",
     equal_packs},
    {"identities",
     "read operations that provably return an operand (DIST, INDEX over segments of one element, "
     "PERMUTE by each element's own position, LENGTHS of MAKE_SEGDES, ...) as that operand",
     identities},
    {"fuse",
     "turn connected elementwise operations (and the reduction or scan they feed) into "
     "superoperators",
     fuse},
    {"nest-reductions",
     "move a MAX_REDUCE or MIN_REDUCE into the superoperator that folds the positions equal to its "
     "result (max_index, min_index), which a backend can then run in one pass",
     nest_reductions},
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

const Pass* find_pass(const std::string& name) {
  for (const Pass& p : passes)
    if (p.name == name) return &p;
  return nullptr;
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::span<const Pass> registered_passes() { return passes; }

std::vector<std::string> default_passes() {
  return {"inline",      "cleanup",    "hoist",   "ranges", "selects",
          "equal-packs", "identities", "cleanup", "fuse",   "nest-reductions",
          "cleanup"};
}

std::vector<std::string> dump_after_names() {
  std::vector<std::string> names = {"lift"};
  for (const Pass& p : passes) names.emplace_back(p.name);
  names.insert(names.end(), {"lower", "all"});
  return names;
}

void check_options(const PipelineOptions& options) {
  std::vector<std::string> pass_names;
  for (const Pass& p : passes) pass_names.emplace_back(p.name);
  for (const std::string& name : options.passes)
    if (!find_pass(name))
      throw std::runtime_error("unknown pass \"" + name + "\" (passes: " + comma_list(pass_names) +
                               ")");
  if (!options.dump_after) return;
  const std::vector<std::string> dump_names = dump_after_names();
  if (std::find(dump_names.begin(), dump_names.end(), *options.dump_after) == dump_names.end())
    throw std::runtime_error("unknown pass \"" + *options.dump_after + "\" for --dump-after (" +
                             comma_list(dump_names) + ")");
}

PipelineResult optimize(const vcode::Program& input, const PipelineOptions& options) {
  check_options(options);
  std::vector<const Pass*> chosen;
  for (const std::string& name : options.passes) chosen.push_back(find_pass(name));
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
