#include "trace_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace vm {

namespace {

using nlohmann::json;

json span(std::string_view name, std::string_view category, double start_us, double duration_us) {
  return {{"name", name}, {"cat", category}, {"ph", "X"}, {"pid", 1}, {"tid", 1},
          {"ts", start_us}, {"dur", duration_us}};
}

}  // namespace

TraceJson::TraceJson(const std::string& path, const std::string& process_name)
    : out_(path, std::ios::binary | std::ios::trunc), path_(path), origin_(Clock::now()) {
  if (!out_) throw std::runtime_error("--trace-json: cannot write " + path);
  // The envelope is the trace-event format's object form; every event in it is a json value.
  out_ << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  write_event(json{{"name", "process_name"}, {"ph", "M"}, {"pid", 1},
                   {"args", {{"name", process_name}}}}.dump());
  write_event(json{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1},
                   {"args", {{"name", "VCODE"}}}}.dump());
}

TraceJson::~TraceJson() {
  try {
    finish(Clock::now());
  } catch (...) {  // a destructor must not throw; the file is then incomplete
  }
}

double TraceJson::microseconds(Clock::time_point t) const {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
  return static_cast<double>(ns) / 1000.0;  // ns resolution, printed in few digits
}

void TraceJson::write_event(const std::string& event) {
  if (!first_event_) out_ << ",\n";
  first_event_ = false;
  out_ << event;
}

void TraceJson::phase(std::string_view name, Clock::time_point start, Clock::time_point end) {
  write_event(span(name, "phase", microseconds(start), microseconds(end) - microseconds(start)).dump());
}

void TraceJson::write_instruction(const Instruction& ins) {
  const double start = microseconds(ins.start);
  json event = span(ins.text, "instruction", start, microseconds(ins.end) - start);
  json& args = event["args"];
  args["opcode"] = ins.opcode;
  if (!ins.type.empty()) args["type"] = ins.type;
  args["elements"] = ins.elements;
  args["function"] = ins.function;
  args["line"] = ins.line;
  const auto delta = [&](std::uint64_t cvl::BackendStats::*counter) {
    return ins.after.*counter - ins.before.*counter;
  };
  if (const auto n = delta(&cvl::BackendStats::kernel_launches)) args["launches"] = n;
  if (const auto n = delta(&cvl::BackendStats::host_syncs)) args["syncs"] = n;
  if (const auto n = delta(&cvl::BackendStats::bytes_to_device)) args["bytes to device"] = n;
  if (const auto n = delta(&cvl::BackendStats::bytes_to_host)) args["bytes to host"] = n;
  write_event(event.dump());
}

void TraceJson::instruction(const Instruction& ins) {
  const bool backend_work = ins.after.kernel_launches != ins.before.kernel_launches ||
                            ins.after.host_syncs != ins.before.host_syncs ||
                            ins.after.bytes_to_device != ins.before.bytes_to_device ||
                            ins.after.bytes_to_host != ins.before.bytes_to_host;
  if (backend_work || ins.end - ins.start >= short_span) {
    flush_short_run();
    write_instruction(ins);
    return;
  }
  if (run_.count == 0) {
    run_.start = ins.start;
    run_.first = ins;
  }
  ++run_.count;
  run_.end = ins.end;
  ++run_.opcodes[std::string(ins.opcode)];
}

void TraceJson::flush_short_run() {
  if (run_.count == 0) return;
  if (run_.count == 1) {
    write_instruction(run_.first);
  } else {
    const double start = microseconds(run_.start);
    json event = span(std::to_string(run_.count) + " short instructions", "instructions", start,
                      microseconds(run_.end) - start);
    event["args"]["instructions"] = run_.count;
    event["args"]["opcodes"] = run_.opcodes;  // opcode -> count
    event["args"]["function"] = run_.first.function;
    event["args"]["first line"] = run_.first.line;
    write_event(event.dump());
  }
  run_ = ShortRun{};
}

void TraceJson::enter_function(std::string_view name, Clock::time_point at) {
  flush_short_run();
  functions_.push_back({std::string(name), at});
}

void TraceJson::leave_function(Clock::time_point at) {
  flush_short_run();
  if (functions_.empty()) return;
  const OpenFunction& f = functions_.back();
  const double start = microseconds(f.start);
  write_event(span(f.name, "function", start, microseconds(at) - start).dump());
  functions_.pop_back();
}

void TraceJson::memory(std::uint64_t host_bytes, std::uint64_t device_bytes, Clock::time_point at) {
  if (host_bytes == last_host_bytes_ && device_bytes == last_device_bytes_) return;
  last_host_bytes_ = host_bytes;
  last_device_bytes_ = device_bytes;
  write_event(json{{"name", "vector memory"}, {"ph", "C"}, {"pid", 1}, {"ts", microseconds(at)},
                   {"args", {{"host bytes", host_bytes}, {"device bytes", device_bytes}}}}.dump());
}

void TraceJson::finish(Clock::time_point at) {
  if (finished_) return;
  finished_ = true;
  flush_short_run();
  while (!functions_.empty()) leave_function(at);
  out_ << "\n]}\n";
  out_.flush();
  if (!out_) throw std::runtime_error("--trace-json: cannot write " + path_);
}

}  // namespace vm
