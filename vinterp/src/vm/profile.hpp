// `--profile`: per-opcode counts, time, elements processed and backend work (kernel launches,
// host syncs, bytes moved), printed as a table at the end.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cvl/backend.hpp"
#include "vcode/op.hpp"

namespace vm {

class Profile {
 public:
  Profile();

  // `seconds` is the measured time of one instruction; the cost of reading the clock twice is
  // subtracted so that cheap instructions show their own cost. `before` and `after` are the
  // backend's counters around the instruction.
  void record(vcode::Op op, double seconds, std::uint64_t elements, const cvl::BackendStats& before,
              const cvl::BackendStats& after) {
    auto& row = rows_[static_cast<std::size_t>(op)];
    ++row.count;
    row.seconds += seconds > clock_overhead_ ? seconds - clock_overhead_ : 0.0;
    row.elements += elements;
    row.launches += after.kernel_launches - before.kernel_launches;
    row.syncs += after.host_syncs - before.host_syncs;
    row.bytes_to_device += after.bytes_to_device - before.bytes_to_device;
    row.bytes_to_host += after.bytes_to_host - before.bytes_to_host;
  }

  // Elements of an operand whose count is still pending on the device: added to op's row when
  // the table is printed (by then the count is known; reading it now would wait).
  void count_later(vcode::Op op, const cvl::Length& elements) {
    pending_elements_.push_back({op, elements});
  }

  // Writes the table, busiest opcodes first, with totals and the mean cost per instruction.
  // Backend columns that are zero throughout (a host backend) are left out; `run_stats` (the
  // backend's counters at the end) gives peak device memory and all bytes moved, constants
  // included, and how many superoperators were planned. `backend` names the backend in the
  // header.
  void print(std::FILE* out, double wall_seconds, const cvl::BackendStats& run_stats,
             const std::string& backend);

  // -O: the optimizer ran for `seconds` before the run; print() says so.
  void optimizer_ran(double seconds) { optimize_seconds_ = seconds; }

 private:
  struct Row {
    std::uint64_t count = 0;
    double seconds = 0;
    std::uint64_t elements = 0;
    std::uint64_t launches = 0;
    std::uint64_t syncs = 0;
    std::uint64_t bytes_to_device = 0;
    std::uint64_t bytes_to_host = 0;
  };
  std::array<Row, vcode::op_count> rows_{};
  std::vector<std::pair<vcode::Op, cvl::Length>> pending_elements_;
  double clock_overhead_ = 0;
  double optimize_seconds_ = -1;  // -1: no -O
};

}  // namespace vm
