#include "nesl/eval_globals.hpp"

#include <utility>
#include <vector>

#include "nesl/diagnostics.hpp"
#include "nesl/session.hpp"

namespace nesl {
namespace {

// Where the values the bindings print go: nowhere (the program written prints its own results).
std::ostream& discarded_output() {
  static std::ostream nowhere(nullptr);
  return nowhere;
}

}  // namespace

Program evaluate_globals(Program program, std::shared_ptr<const Basis> basis, bool argument_checks,
                         const VmSettings& limits, std::ostream& errors) {
  SessionSettings settings;
  settings.vm.threads = 1;
  settings.vm.max_memory = limits.max_memory;
  settings.vm.max_call_depth = limits.max_call_depth;
  settings.vm.sandbox = limits.sandbox;
  settings.argument_checks = argument_checks;
  Session loader(std::move(basis), settings, discarded_output(), errors);
  std::vector<TopLevelForm> expressions;
  Program definitions;
  definitions.source = program.source;
  definitions.loaded = std::move(program.loaded);  // the session keeps the files alive
  for (TopLevelForm& form : program.forms) {
    (form.kind == TopLevelForm::Kind::Expression ? expressions : definitions.forms).push_back(std::move(form));
  }
  if (!loader.run(std::move(definitions))) {
    throw CompileError({}, "a top-level binding failed when it ran (as in the classic, each binding runs when "
                           "the file is loaded, before the program is written)");
  }
  return loader.release_loaded_program(std::move(expressions));
}

}  // namespace nesl
