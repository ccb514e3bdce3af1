// Runs compiled VCODE in this process as vinterp does (backend registry, VM, -O through fcode-opt's
// pipeline), keeping the final stack for the caller.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vcode/program.hpp"

namespace cvl {
class Backend;
}

namespace nesl {

// vinterp's --backend, --threads, -O, --max-memory, --max-call-depth and --sandbox.
struct VmSettings {
  std::string backend = "cpu";
  int threads = 0;  // 0: all cores; 1: sequential, with the C library's exact transcendentals
  bool optimize = false;
  std::uint64_t max_memory = 0;    // bytes; 0: the backend's default
  std::size_t max_call_depth = 0;  // 0: the VM's default
  bool sandbox = false;            // SPAWN (shell_command) and FOPEN (file I/O) are runtime errors
  // When set (the REPL's Ctrl-C), the run stops at its next call; the outcome says interrupted.
  const std::atomic<bool>* interrupt = nullptr;
};

// A backend from the registry, made as vinterp makes it; throws std::runtime_error saying why
// there is none (not in this build, no device).
std::unique_ptr<cvl::Backend> make_vm_backend(const VmSettings& settings);

struct VmOutcome {
  bool failed = false;      // the VM stopped on a failure: `failure` says which
  std::string failure;      // the VM's message, as vinterp would print it
  // A failure on the program's data (not a bug of ours, not the device): the VM's message alone.
  std::string data_failure;
  bool division = false;    // the failure is an INT division fault (the classic's SIGFPE)
  bool interrupted = false;  // the failure is the interrupt flag's stop
  std::string final_stack;  // one line per slot; empty when the program stopped with EXIT
  // Where a failed run, or one that stopped with EXIT (after the program's own error message),
  // stopped: the VCODE line of the instruction, then of each call that led there, innermost first.
  std::vector<int> stopped_at;
};

// -O: replaces `program` (VCODE) by the FCODE fcode-opt writes for it (vinterp -O's pipeline).
// Throws std::runtime_error when the pipeline fails (a fault of the compiler, not of the program).
void optimize_vcode(vcode::Program& program);

// Optimizes the compiled program with -O and runs it on `backend`; `name` names it in messages.
// The program's own output goes where vinterp's does. Throws std::runtime_error when -O fails
// (a fault of the compiler, not of the program).
VmOutcome run_vcode(vcode::Program program, const std::string& name, const VmSettings& settings,
                    cvl::Backend& backend);

}  // namespace nesl
