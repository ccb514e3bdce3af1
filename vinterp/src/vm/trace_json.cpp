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

// The backend's work between two readings of its counters, where there was some.
void add_backend_work(json& args, const cvl::BackendStats& before, const cvl::BackendStats& after) {
  const auto delta = [&](std::uint64_t cvl::BackendStats::*counter) {
    return after.*counter - before.*counter;
  };
  if (const auto n = delta(&cvl::BackendStats::kernel_launches)) args["launches"] = n;
  if (const auto n = delta(&cvl::BackendStats::host_syncs)) args["syncs"] = n;
  if (const auto n = delta(&cvl::BackendStats::bytes_to_device)) args["bytes to device"] = n;
  if (const auto n = delta(&cvl::BackendStats::bytes_to_host)) args["bytes to host"] = n;
}

}  // namespace

TraceJson::TraceJson(const std::string& path, const std::string& process_name)
    : out_(path, std::ios::binary | std::ios::trunc), path_(path), origin_(Clock::now()) {
  if (!out_) throw std::runtime_error("--trace-json: cannot write " + path);
  frames_.push_back({"", origin_, {}, true});
  // The envelope is the trace-event format's object form; every event in it is a json value.
  out_ << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  write_event(json{{"name", "process_name"}, {"ph", "M"}, {"pid", 1},
                   {"args", {{"name", process_name}}}}.dump());
  write_event(json{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1},
                   {"args", {{"name", "VCODE"}}}}.dump());
}

TraceJson::TraceJson() : origin_(Clock::now()) { frames_.push_back({"", origin_, {}, true}); }

TraceJson::~TraceJson() {
  try {
    finish(Clock::now());
  } catch (...) {  // a destructor must not throw; the file is then incomplete
  }
}

double TraceJson::microseconds(Clock::time_point t) const { return microseconds_between(origin_, t); }

double TraceJson::microseconds_between(Clock::time_point from, Clock::time_point to) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
  return static_cast<double>(ns) / 1000.0;  // ns resolution, printed in few digits
}

void TraceJson::write_event(const std::string& event) {
  if (path_.empty()) return;  // the writer that writes nothing
  if (!first_event_) out_ << ",\n";
  first_event_ = false;
  out_ << event;
  if (++events_written_ % events_per_coarsening == 0) {
    short_span_ *= 2;
    short_call_ *= 2;
  }
}

void TraceJson::phase(std::string_view name, Clock::time_point start, Clock::time_point end) {
  write_event(span(name, "phase", microseconds(start), microseconds_between(start, end)).dump());
}

void TraceJson::write_instruction(const Instruction& ins) {
  json event = span(ins.text, "instruction", microseconds(ins.start),
                    microseconds_between(ins.start, ins.end));
  json& args = event["args"];
  args["opcode"] = ins.opcode;
  if (!ins.type.empty()) args["type"] = ins.type;
  args["elements"] = ins.elements;
  args["function"] = ins.function;
  args["line"] = ins.line;
  add_backend_work(args, ins.before, ins.after);
  write_event(event.dump());
}

void TraceJson::instruction(const Instruction& ins) {
  if (ins.end - ins.start >= short_span_) {
    detail_open_calls();
    write_instruction(ins);
    return;
  }
  ShortRun& run = frames_.back().run;
  if (run.count == 0 && run.calls.empty()) {
    run.start = ins.start;
    run.first = ins;
  }
  ++run.count;
  run.end = ins.end;
  run.last_stats = ins.after;
  ++run.opcodes[std::string(ins.opcode)];
}

void TraceJson::ShortRun::add(const ShortRun& folded) {
  count += folded.count;
  for (const auto& [opcode, n] : folded.opcodes) opcodes[opcode] += n;
  for (const auto& [function, n] : folded.calls) calls[function] += n;
}

void TraceJson::flush(ShortRun& run) {
  if (run.count == 1 && run.calls.empty()) {
    write_instruction(run.first);
  } else if (run.count > 0 || !run.calls.empty()) {
    json event = span(std::to_string(run.count) + " short instructions", "instructions",
                      microseconds(run.start), microseconds_between(run.start, run.end));
    event["args"]["instructions"] = run.count;
    event["args"]["opcodes"] = run.opcodes;  // opcode -> count
    if (!run.calls.empty()) event["args"]["calls"] = run.calls;  // function -> count
    add_backend_work(event["args"], run.first.before, run.last_stats);
    event["args"]["function"] = run.first.function;
    event["args"]["first line"] = run.first.line;
    write_event(event.dump());
  }
  run = ShortRun{};
}

void TraceJson::detail_open_calls() {
  // A caller's pending run ended where its open callee began, so it is whole: write it.
  for (Frame& frame : frames_) {
    flush(frame.run);
    frame.detailed = true;
  }
}

void TraceJson::enter_function(std::string_view name, Clock::time_point at) {
  frames_.push_back({std::string(name), at, {}, false});
}

void TraceJson::leave_function(Clock::time_point at) {
  if (frames_.size() < 2) return;  // a return without a call: nothing is open
  Frame callee = std::move(frames_.back());
  frames_.pop_back();
  ShortRun& caller = frames_.back().run;
  if (!callee.detailed && at - callee.start < short_call_) {
    if (caller.count == 0 && caller.calls.empty()) {
      caller.start = callee.start;
      caller.first = callee.run.first;
    }
    caller.add(callee.run);
    ++caller.calls[callee.name];
    caller.end = at;
    if (callee.run.count > 0) caller.last_stats = callee.run.last_stats;
    return;
  }
  detail_open_calls();
  flush(callee.run);
  write_event(span(callee.name, "function", microseconds(callee.start),
                   microseconds_between(callee.start, at)).dump());
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
  // Open calls end here and are written whole; so is what ran outside them.
  while (frames_.size() > 1) {
    frames_.back().detailed = true;
    leave_function(at);
  }
  flush(frames_.back().run);
  if (path_.empty()) return;
  out_ << "\n]}\n";
  out_.flush();
  if (!out_) throw std::runtime_error("--trace-json: cannot write " + path_);
}

}  // namespace vm
