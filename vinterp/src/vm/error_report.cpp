#include "error_report.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "cvl/backend.hpp"
#include "cvl/errors.hpp"
#include "machine.hpp"

namespace vm {

Failure current_failure() {
  try {
    throw;
  } catch (const RuntimeError& e) {
    return {FailureKind::Data, e.what()};
  } catch (const cvl::Error& e) {
    return {FailureKind::Data, e.what()};
  } catch (const std::bad_alloc&) {
    return {FailureKind::Data, "ran out of memory"};
  } catch (const cvl::DeviceError& e) {
    return {FailureKind::Device, e.what()};
  } catch (const cvl::InternalError& e) {
    return {FailureKind::Internal, e.what()};
  } catch (const std::exception& e) {  // the contract allows none: a bug wherever it came from
    return {FailureKind::Internal, std::string("unexpected exception: ") + e.what()};
  } catch (...) {
    return {FailureKind::Internal, "unexpected exception of unknown type"};
  }
}

std::string failure_line(const Failure& failure, const std::string& where) {
  const char* kind = "";  // a data error keeps the classic interpreter's format
  switch (failure.kind) {
    case FailureKind::Data: break;
    case FailureKind::Internal:
      kind = "internal error (a bug in vinterp, not in the program): ";
      break;
    case FailureKind::Device: kind = "device failure: "; break;
  }
  return "vinterp: " + std::string(kind) + (where.empty() ? "" : where + ": ") + failure.message;
}

int report_failure(cvl::Backend& backend, const std::string& line, bool dump_core) {
  constexpr int status = 1;
  cvl::DistributedIo& io = cvl::distributed_io_of(backend);
  // Processes that all failed alone end together, as after an agreed error: one message.
  const bool local = io.error_is_local() && !io.all_failed_alone();
  if (local) io.before_reporting_alone();
  if (io.is_io_root() || local) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", line.c_str());
    if (dump_core) std::fprintf(stderr, "vinterp: dumping core\n");
    std::fflush(stderr);
  }
  if (dump_core) std::abort();
  if (local) io.abort_all(status);
  return status;
}

}  // namespace vm
