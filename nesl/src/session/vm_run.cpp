#include "nesl/vm_run.hpp"

#include <cstdio>
#include <stdexcept>

#include "backend_settings.hpp"
#include "cvl/registry.hpp"
#include "optimize_in_process.hpp"
#include "vm/error_report.hpp"
#include "vm/machine.hpp"

namespace nesl {

std::unique_ptr<cvl::Backend> make_vm_backend(const VmSettings& settings) {
  vinterp::BackendSettings backend_settings;  // vinterp's policy, with none of its options given
  backend_settings.backend = settings.backend;
  backend_settings.threads = settings.threads;
  backend_settings.max_memory = settings.max_memory;
  const cvl::BackendOptions options = vinterp::backend_options(backend_settings);
  std::unique_ptr<cvl::Backend> backend;
  try {
    backend = cvl::make_backend(settings.backend, options);
  } catch (...) {  // a GPU backend on a machine without a usable GPU
    throw std::runtime_error("backend '" + settings.backend + "' cannot start: " + vm::current_failure().message);
  }
  if (!backend) {
    std::string names;
    for (const auto& name : cvl::available_backends()) names += " " + name;
    throw std::runtime_error("backend '" + settings.backend +
                             "' is not available in this build (available:" + names + ")");
  }
  return backend;
}

void optimize_vcode(vcode::Program& program) { vinterp::optimize_in_process(program); }

VmOutcome run_vcode(vcode::Program program, const std::string& name, const VmSettings& settings,
                    cvl::Backend& backend) {
  program.file = name;
  if (settings.optimize) optimize_vcode(program);
  VmOutcome outcome;
  vm::MachineOptions options;
  options.final_stack = &outcome.final_stack;
  options.print_failures = false;
  options.interrupt = settings.interrupt;
  options.sandbox = settings.sandbox;
  if (settings.max_call_depth > 0) options.max_call_depth = settings.max_call_depth;
  std::vector<std::uint32_t> stopped_at;
  options.stopped_at = &stopped_at;
  std::fflush(stdout);
  try {
    vm::Machine machine(program, backend, options);
    if (machine.run() != 0) {
      outcome.failed = true;
      const vm::Failure failure =
          machine.reported_failure() ? *machine.reported_failure() : vm::Failure{};
      outcome.failure = vm::failure_line(failure, name);
      if (failure.kind == vm::FailureKind::Data) outcome.data_failure = failure.message;
      outcome.division = failure.kind == vm::FailureKind::Data &&
                         (failure.message.find("division by zero") != std::string::npos ||
                          failure.message.find("overflow in division") != std::string::npos);
      outcome.interrupted = failure.kind == vm::FailureKind::Data &&
                            failure.message == vm::interrupted_message && settings.interrupt &&
                            settings.interrupt->load();
    }
  } catch (...) {  // while the machine prepared the constants
    outcome.failed = true;
    const vm::Failure failure = vm::current_failure();
    outcome.failure = vm::failure_line(failure, name);
    if (failure.kind == vm::FailureKind::Data) outcome.data_failure = failure.message;
  }
  std::fflush(stderr);
  for (std::uint32_t instruction : stopped_at)
    if (instruction < program.code.size()) outcome.stopped_at.push_back(program.code[instruction].where.line);
  return outcome;
}

}  // namespace nesl
