// `--profile`: per-opcode counts, time, elements processed, the cost model's work, the most
// vector memory in use while the opcode ran and the most it allocated, and backend work (kernel launches, host syncs, bytes
// moved, other device copies, device memory traffic against the least the instructions need; a
// distributed run's messages between processes), printed as a table at the end.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cvl/backend.hpp"
#include "source_lines.hpp"
#include "vcode/op.hpp"

namespace vm {

class Profile {
 public:
  Profile();

  // The values an instruction reads and writes, each as (elements, bytes an element).
  using Footprint = std::vector<std::pair<cvl::Length, std::uint64_t>>;

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
    row.copies += after.device_copies - before.device_copies;
    row.bytes_moved += after.device_bytes_moved - before.device_bytes_moved;
    row.messages += after.messages_sent - before.messages_sent;
    row.message_bytes += after.bytes_sent - before.bytes_sent;
    row.collectives += after.collectives - before.collectives;
  }

  // Elements of an operand whose count is still pending on the device: added to op's row when
  // the table is printed (by then the count is known; reading it now would wait).
  void count_later(vcode::Op op, const cvl::Length& elements) {
    pending_elements_.push_back({op, elements});
  }

  // The cost model's work of one instruction: the longest of the vectors it reads and writes
  // (`lengths`), at least 1, for an instruction is a step. A length still pending on the device is
  // read when the table is printed, as count_later's are.
  void record_work(vcode::Op op, std::vector<cvl::Length> lengths);

  // The least device memory traffic an instruction that moved device bytes needs: each operand
  // element read once and each result element written once (`footprint`), beside the row's bytes
  // moved (cvl::BackendStats::device_bytes_moved). A length still pending on the device is read
  // when the table is printed, as count_later's are.
  void record_minimum(vcode::Op op, Footprint footprint);

  // The most bytes of vector memory in use at once while one instruction of `op` ran
  // (cvl::VectorMemory::take_peak_bytes after it), and how far that is above what was in use
  // when it started (`added`: what the instruction itself allocated, where the peak is raised):
  // the row keeps the largest of each.
  void record_peak(vcode::Op op, std::uint64_t bytes, std::uint64_t added) {
    auto& row = rows_[static_cast<std::size_t>(op)];
    row.peak_bytes = std::max(row.peak_bytes, bytes);
    row.peak_added = std::max(row.peak_added, added);
    record_run_peak(bytes);
  }
  // The same between instructions (loading the constants, the final stack dump): the whole run's
  // peak only.
  void record_run_peak(std::uint64_t bytes) {
    run_peak_bytes_ = std::max(run_peak_bytes_, bytes);
    peaks_recorded_ = true;
  }

  // --source-map: print() adds a table per NESL source line (`lines` must outlive the profile),
  // from record_source.
  void use_source_lines(const SourceLines& lines) {
    source_lines_ = &lines;
    source_rows_.assign(lines.places().size() + 1, {});  // the last: instructions of no line
  }
  // One instruction's time, peak bytes and bytes added (record_peak's; 0 where the backend counts
  // none), at `place` (an index into lines.places(), or SourceLines::kNone).
  void record_source(std::int32_t place, double seconds, std::uint64_t peak_bytes,
                     std::uint64_t added) {
    SourceRow& row = source_rows_[place == SourceLines::kNone ? source_rows_.size() - 1
                                                              : static_cast<std::size_t>(place)];
    ++row.count;
    row.seconds += seconds > clock_overhead_ ? seconds - clock_overhead_ : 0.0;
    row.peak_bytes = std::max(row.peak_bytes, peak_bytes);
    row.peak_added = std::max(row.peak_added, added);
  }

  // Writes the table, busiest opcodes first, with totals and the mean cost per instruction.
  // Backend columns that are zero throughout (a host backend) are left out; `run_stats` (the
  // backend's counters at the end) gives peak device memory and all bytes moved, constants
  // included, and how many superoperators were planned. `backend` names the backend in the
  // header.
  void print(std::FILE* out, double wall_seconds, const cvl::BackendStats& run_stats,
             const std::string& backend);

  // The counters of every process of a distributed run: each process's per-opcode messages
  // (cvl::BackendStats::messages_sent, bytes_sent), peak bytes and bytes added, and its whole-run totals
  // (`run_stats`) and peak, with cvl::DistributedIo::gather_counters, a collective that every
  // process calls before print(). print() then shows the peaks summed over all processes and,
  // where some process sent any, each opcode's messages and bytes over all processes (two more
  // columns) and a table of each process's whole-run totals.
  void gather_processes(cvl::DistributedIo& io, const cvl::BackendStats& run_stats);

  // -O: the optimizer ran for `seconds` before the run; print() says so.
  void optimizer_ran(double seconds) { optimize_seconds_ = seconds; }

 private:
  struct Row {
    std::uint64_t count = 0;
    double seconds = 0;
    std::uint64_t elements = 0;
    std::uint64_t work = 0;
    std::uint64_t peak_bytes = 0;  // the largest of record_peak's
    std::uint64_t peak_added = 0;
    std::uint64_t launches = 0;
    std::uint64_t syncs = 0;
    std::uint64_t bytes_to_device = 0;
    std::uint64_t bytes_to_host = 0;
    std::uint64_t copies = 0;
    std::uint64_t bytes_moved = 0;
    std::uint64_t bytes_minimum = 0;
    std::uint64_t messages = 0;  // this process's; after gather_processes, every process's
    std::uint64_t message_bytes = 0;
    std::uint64_t collectives = 0;  // the same on every process
  };
  struct ProcessMessages {
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
  };
  struct SourceRow {
    std::uint64_t count = 0;
    double seconds = 0;
    std::uint64_t peak_bytes = 0;
    std::uint64_t peak_added = 0;
  };
  void print_process_messages(std::FILE* out) const;
  void print_source_lines(std::FILE* out, double total_seconds) const;

  std::array<Row, vcode::op_count> rows_{};
  std::vector<ProcessMessages> processes_;  // gather_processes: each process's whole run
  std::vector<std::pair<vcode::Op, cvl::Length>> pending_elements_;
  std::vector<std::pair<vcode::Op, std::vector<cvl::Length>>> pending_work_;
  std::vector<std::pair<vcode::Op, Footprint>> pending_minimum_;
  const SourceLines* source_lines_ = nullptr;
  std::vector<SourceRow> source_rows_;  // per place of source_lines_, then one for none
  std::uint64_t run_peak_bytes_ = 0;
  bool peaks_recorded_ = false;  // the backend counts its vector memory: the peak column is shown
  double clock_overhead_ = 0;
  double optimize_seconds_ = -1;  // -1: no -O
};

}  // namespace vm
