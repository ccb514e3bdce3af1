// How vinterp tells a failure to the user: its kind (the program's data, a bug in vinterp, the
// device) decides the one line printed; the exit status is 1 for every kind.
#pragma once

#include <cstdint>
#include <string>

namespace cvl {
class Backend;
}

namespace vm {

enum class FailureKind : std::uint8_t { Data, Internal, Device };

struct Failure {
  FailureKind kind = FailureKind::Internal;
  std::string message;
};

// The failure being handled: call it inside a catch block. vm::RuntimeError and cvl::Error are
// data errors, as is running out of host memory; cvl::InternalError and any exception no kind
// claims are bugs; cvl::DeviceError is a device failure.
Failure current_failure();

// The line printed (without "\n") for `failure` at `where` (FILE:LINE: in function F,
// instruction OP TYPE; the file before the program runs; nothing before the program is loaded):
//   data:     "vinterp: WHERE: MESSAGE"  (the classic interpreter's format, unchanged)
//   internal: "vinterp: internal error (a bug in vinterp, not in the program): WHERE: MESSAGE"
//   device:   "vinterp: device failure: WHERE: MESSAGE"
std::string failure_line(const Failure& failure, const std::string& where);

// Prints `line` (a failure_line) on stderr, stdout flushed first, where the user should see it
// once: on the io root (cvl::DistributedIo::is_io_root), and on a process of a distributed run
// that alone saw the failure (cvl::DistributedIo::error_is_local), which then ends every process
// (abort_all), unless every process failed alone too (all_failed_alone): then they end together. `dump_core` (-d abort) aborts this process after printing. Returns the exit
// status, 1, where it returns.
int report_failure(cvl::Backend& backend, const std::string& line, bool dump_core = false);

}  // namespace vm
