#include "profile.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace vm {

Profile::Profile() {
  // The smallest of many back-to-back clock reads: what timing an empty instruction costs.
  double best = 1.0;
  for (int i = 0; i < 1000; ++i) {
    auto a = std::chrono::steady_clock::now();
    auto b = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(b - a).count());
  }
  clock_overhead_ = best;
}

namespace {

std::uint64_t longest(const std::vector<cvl::Length>& lengths) {
  std::uint64_t work = 1;
  for (const cvl::Length& n : lengths) work = std::max<std::uint64_t>(work, n.get());
  return work;
}

std::uint64_t bytes_of(const Profile::Footprint& footprint) {
  std::uint64_t bytes = 0;
  for (const auto& [n, size] : footprint) bytes += n.get() * size;
  return bytes;
}

}  // namespace

void Profile::record_work(vcode::Op op, std::vector<cvl::Length> lengths) {
  for (const cvl::Length& n : lengths)
    if (!n.known()) {
      pending_work_.emplace_back(op, std::move(lengths));
      return;
    }
  rows_[static_cast<std::size_t>(op)].work += longest(lengths);
}

void Profile::record_minimum(vcode::Op op, Footprint footprint) {
  for (const auto& [n, size] : footprint)
    if (!n.known()) {
      pending_minimum_.emplace_back(op, std::move(footprint));
      return;
    }
  rows_[static_cast<std::size_t>(op)].bytes_minimum += bytes_of(footprint);
}

void Profile::print(std::FILE* out, double wall_seconds, const cvl::BackendStats& run_stats,
                    const std::string& backend) {
  for (const auto& [op, elements] : pending_elements_)
    rows_[static_cast<std::size_t>(op)].elements += elements.get();
  pending_elements_.clear();
  for (const auto& [op, lengths] : pending_work_) rows_[static_cast<std::size_t>(op)].work += longest(lengths);
  pending_work_.clear();
  for (const auto& [op, footprint] : pending_minimum_)
    rows_[static_cast<std::size_t>(op)].bytes_minimum += bytes_of(footprint);
  pending_minimum_.clear();
  std::vector<std::size_t> order;
  Row total;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    if (r.count == 0) continue;
    order.push_back(i);
    total.count += r.count;
    total.seconds += r.seconds;
    total.elements += r.elements;
    total.work += r.work;
    total.peak_bytes = std::max(total.peak_bytes, r.peak_bytes);
    total.peak_added = std::max(total.peak_added, r.peak_added);
    total.launches += r.launches;
    total.syncs += r.syncs;
    total.bytes_to_device += r.bytes_to_device;
    total.bytes_to_host += r.bytes_to_host;
    total.copies += r.copies;
    total.bytes_moved += r.bytes_moved;
    total.bytes_minimum += r.bytes_minimum;
    total.messages += r.messages;
    total.message_bytes += r.message_bytes;
    total.collectives += r.collectives;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return rows_[a].seconds > rows_[b].seconds; });

  // The backend columns, each shown only when some instruction has a non-zero value.
  struct Column {
    const char* title;
    std::uint64_t Row::*field;
  };
  std::vector<Column> columns;
  for (Column c : {Column{"launches", &Row::launches}, Column{"syncs", &Row::syncs},
                   Column{"bytes to dev", &Row::bytes_to_device},
                   Column{"bytes to host", &Row::bytes_to_host}, Column{"copies", &Row::copies},
                   Column{"bytes moved", &Row::bytes_moved},
                   Column{"bytes minimum", &Row::bytes_minimum}})
    if (total.*c.field != 0) columns.push_back(c);
  // Device traffic against the least it could be (an opcode with no minimum: "-").
  const bool traffic_ratio = total.bytes_moved != 0 && total.bytes_minimum != 0;
  const bool device_work = !columns.empty() || run_stats.device_bytes_peak != 0 ||
                           run_stats.bytes_to_device != 0 || run_stats.bytes_to_host != 0;
  for (Column c : {Column{"messages", &Row::messages}, Column{"message bytes", &Row::message_bytes},
                   Column{"collectives", &Row::collectives}})
    if (total.*c.field != 0) columns.push_back(c);

  if (device_work)
    std::fprintf(out, "profile of backend %s: times are device times (the interpreter waits for the "
                 "device after every instruction; those waits are not counted as syncs)\n",
                 backend.c_str());
  std::fprintf(out, "%-12s %12s %12s %8s %12s %16s %16s", "opcode", "count", "time s", "time %",
               "ns/op", "elements", "work");
  if (peaks_recorded_) std::fprintf(out, " %16s %16s", "peak bytes", "peak added");
  for (const Column& c : columns) std::fprintf(out, " %14s", c.title);
  if (traffic_ratio) std::fprintf(out, " %10s", "moved/min");
  std::fputc('\n', out);
  auto print_row = [&](const char* name, int name_length, const Row& r) {
    std::fprintf(out, "%-12.*s %12llu %12.6f %7.2f%% %12.1f %16llu %16llu", name_length, name,
                 (unsigned long long)r.count, r.seconds,
                 total.seconds > 0 ? 100.0 * r.seconds / total.seconds : 0.0,
                 r.count ? 1e9 * r.seconds / double(r.count) : 0.0, (unsigned long long)r.elements,
                 (unsigned long long)r.work);
    if (peaks_recorded_)
      std::fprintf(out, " %16llu %16llu", (unsigned long long)r.peak_bytes,
                   (unsigned long long)r.peak_added);
    for (const Column& c : columns) std::fprintf(out, " %14llu", (unsigned long long)(r.*c.field));
    if (traffic_ratio) {
      if (r.bytes_minimum != 0)
        std::fprintf(out, " %10.2f", double(r.bytes_moved) / double(r.bytes_minimum));
      else
        std::fprintf(out, " %10s", "-");
    }
    std::fputc('\n', out);
  };
  for (std::size_t i : order) {
    const auto& spelling = vcode::op_table[i].spelling;
    print_row(spelling.data(), int(spelling.size()), rows_[i]);
  }
  print_row("total", 5, total);
  print_process_messages(out);
  if (source_lines_) print_source_lines(out, total.seconds);
  if (run_stats.collectives != 0)
    std::fprintf(out, "collective calls in the whole run: %llu (every process makes each; constants "
                 "and the final stack dump included)\n", (unsigned long long)run_stats.collectives);
  std::fprintf(out, "wall time %.6f s (including the final stack dump); clock overhead %.1f ns "
               "per instruction subtracted\n", wall_seconds, 1e9 * clock_overhead_);
  if (peaks_recorded_)
    std::fprintf(out, "vector memory peak %llu bytes (%.1f MiB) in the whole run, constants and the "
                 "final stack dump included%s; an opcode's peak bytes are the most in use while one "
                 "of its instructions ran, its peak added the most one of them raised that above "
                 "what was in use when it started\n",
                 (unsigned long long)run_peak_bytes_, double(run_peak_bytes_) / 1048576.0,
                 processes_.size() > 1 ? " (summed over the processes)" : "");
  if (optimize_seconds_ >= 0)
    std::fprintf(out, "optimizer (-O, fcode-opt's pipeline in-process) %.6f s before the run, not "
                 "in the wall time\n", optimize_seconds_);
  if (run_stats.fused_plans != 0)
    std::fprintf(out, "superoperators planned: %llu (each once, at load; FUSED calls plan "
                 "nothing)\n", (unsigned long long)run_stats.fused_plans);
  if (device_work)
    std::fprintf(out, "device memory peak %llu bytes (%.1f MiB); in the whole run %llu bytes to the "
                 "device, %llu bytes to the host, %llu kernel launches, %llu host syncs (the "
                 "profiler's waits included), %llu other device copies and fills\n",
                 (unsigned long long)run_stats.device_bytes_peak,
                 double(run_stats.device_bytes_peak) / 1048576.0,
                 (unsigned long long)run_stats.bytes_to_device,
                 (unsigned long long)run_stats.bytes_to_host,
                 (unsigned long long)run_stats.kernel_launches,
                 (unsigned long long)run_stats.host_syncs,
                 (unsigned long long)run_stats.device_copies);
  if (traffic_ratio)
    std::fprintf(out, "bytes moved: device memory read and written by the instructions' kernels, "
                 "library calls, copies and fills on the device (counted from a formula per "
                 "kernel, not measured); bytes minimum: each operand element read once and each "
                 "result element written once, for the instructions that moved device bytes\n");
  if (run_stats.guesses_failed != 0)
    std::fprintf(out, "guessed lengths too small: %llu (each time the instructions since the last "
                 "certain point ran again, without guessing; their rows count them twice)\n",
                 (unsigned long long)run_stats.guesses_failed);
}

void Profile::gather_processes(cvl::DistributedIo& io, const cvl::BackendStats& run_stats) {
  // Per opcode: messages, bytes, peak bytes, peak added; then the whole run's messages, bytes,
  // peak bytes (and a 0, so that every group has kPerRow).
  constexpr std::size_t kPerRow = 4;
  std::vector<std::uint64_t> local;
  for (const Row& r : rows_)
    local.insert(local.end(), {r.messages, r.message_bytes, r.peak_bytes, r.peak_added});
  local.insert(local.end(), {run_stats.messages_sent, run_stats.bytes_sent, run_peak_bytes_, 0});
  const std::vector<std::uint64_t> all = io.gather_counters(local);
  for (Row& r : rows_) r.messages = r.message_bytes = r.peak_bytes = r.peak_added = 0;
  run_peak_bytes_ = 0;
  processes_.clear();
  for (std::size_t first = 0; first + local.size() <= all.size(); first += local.size()) {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      rows_[i].messages += all[first + kPerRow * i];
      rows_[i].message_bytes += all[first + kPerRow * i + 1];
      rows_[i].peak_bytes += all[first + kPerRow * i + 2];
      rows_[i].peak_added += all[first + kPerRow * i + 3];
    }
    const std::size_t totals = first + local.size() - kPerRow;
    processes_.push_back({all[totals], all[totals + 1]});
    run_peak_bytes_ += all[totals + 2];
  }
}

// The table per NESL line, most peak bytes first (then most time); lines that ran nothing are
// left out.
void Profile::print_source_lines(std::FILE* out, double total_seconds) const {
  std::vector<std::size_t> order;
  int width = 16;
  for (std::size_t i = 0; i < source_rows_.size(); ++i) {
    if (source_rows_[i].count == 0) continue;
    order.push_back(i);
    if (i < source_lines_->places().size())
      width = std::max(width, static_cast<int>(source_lines_->places()[i].size()));
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SourceRow& x = source_rows_[a];
    const SourceRow& y = source_rows_[b];
    return x.peak_bytes != y.peak_bytes ? x.peak_bytes > y.peak_bytes : x.seconds > y.seconds;
  });
  std::fprintf(out, "per NESL source line (--source-map; an instruction of a built-in function or "
               "of code the compiler added counts for the line that called it)\n"
               "%-*s %12s %12s %8s %16s %16s\n", width, "source line", "instructions", "time s",
               "time %", "peak bytes", "peak added");
  for (std::size_t i : order) {
    const SourceRow& r = source_rows_[i];
    const char* place = i < source_lines_->places().size() ? source_lines_->places()[i].c_str()
                                                           : "(no source line)";
    std::fprintf(out, "%-*s %12llu %12.6f %7.2f%% %16llu %16llu\n", width, place,
                 (unsigned long long)r.count, r.seconds,
                 total_seconds > 0 ? 100.0 * r.seconds / total_seconds : 0.0,
                 (unsigned long long)r.peak_bytes, (unsigned long long)r.peak_added);
  }
}

// The per-process table, where some process sent a message.
void Profile::print_process_messages(std::FILE* out) const {
  ProcessMessages total;
  for (const ProcessMessages& p : processes_) {
    total.messages += p.messages;
    total.bytes += p.bytes;
  }
  if (total.messages == 0) return;
  std::fprintf(out, "messages sent per process (point-to-point and collective, in the whole run "
               "up to this report: constants and the final stack dump included)\n"
               "%-12s %12s %16s\n", "process", "messages", "bytes");
  for (std::size_t rank = 0; rank < processes_.size(); ++rank)
    std::fprintf(out, "%-12zu %12llu %16llu\n", rank, (unsigned long long)processes_[rank].messages,
                 (unsigned long long)processes_[rank].bytes);
  std::fprintf(out, "%-12s %12llu %16llu\n", "total", (unsigned long long)total.messages,
               (unsigned long long)total.bytes);
}

}  // namespace vm
