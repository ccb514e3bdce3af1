// --trace-json FILE: the run as a timeline in the Chrome trace-event format (Perfetto and
// chrome://tracing open it): one span per instruction, nested in spans for the VCODE function
// calls, each with its opcode, type, element count and the backend's launches, syncs and bytes;
// a counter track of vector memory in use; spans for loading and -O before the run.
//
// Size: instructions in a row that are each shorter than `initial_short_span` share one span that counts
// them by opcode and sums the backend's launches, syncs and bytes. A call that ran
// only such instructions and took under `initial_short_call` is folded into its caller's span too (it
// counts the calls by name), so the file's size follows the run's long steps, not its
// instruction count. What is long depends on the machine (a slow clock or a busy core makes
// every step look longer), so the two thresholds double after every `events_per_coarsening`
// events written: a slow machine's trace is as detailed at first and then coarser, not many
// times larger. Events are written as they come (one JSON object per line); what waits is one
// pending span per open call.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cvl/backend.hpp"

namespace vm {

class TraceJson {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::nanoseconds initial_short_span{2000};
  static constexpr std::chrono::nanoseconds initial_short_call{50000};
  static constexpr std::size_t events_per_coarsening = 8192;

  // Opens `path` (times count from now); throws std::runtime_error naming it when it cannot.
  TraceJson(const std::string& path, const std::string& process_name);
  // Writes nothing: a process of a distributed run that is not the io root runs as traced, so
  // that it makes the same backend calls as the one that writes the file.
  TraceJson();
  ~TraceJson();  // finishes the file if finish() was not called
  TraceJson(const TraceJson&) = delete;
  TraceJson& operator=(const TraceJson&) = delete;

  // A step outside the machine: "load", "optimize (-O)".
  void phase(std::string_view name, Clock::time_point start, Clock::time_point end);

  struct Instruction {
    std::string_view opcode;  // as VCODE spells it
    std::string_view type;    // "INT", ..., or "" for an untyped instruction
    std::string text;         // the instruction as written (FUSED 3, CONST INT 5 ...)
    std::string_view function;
    int line = 0;
    Clock::time_point start, end;
    std::uint64_t elements = 0;  // of its operands whose counts were known on the host
    cvl::BackendStats before, after;
  };
  void instruction(const Instruction& ins);
  void enter_function(std::string_view name, Clock::time_point at);
  void leave_function(Clock::time_point at);
  // Vector memory in use, on the host and on the device; written only when it changed.
  void memory(std::uint64_t host_bytes, std::uint64_t device_bytes, Clock::time_point at);
  // Ends the open spans at `at` and completes the file. Later calls do nothing.
  void finish(Clock::time_point at);

 private:
  // Short instructions, and short calls, waiting to be written as one span.
  struct ShortRun {
    std::size_t count = 0;
    Clock::time_point start, end;
    std::map<std::string, std::size_t, std::less<>> opcodes;
    std::map<std::string, std::size_t, std::less<>> calls;  // folded calls by function
    Instruction first;  // written as itself when it stays alone
    cvl::BackendStats last_stats;  // after its last instruction; `first.before` opens it
    void add(const ShortRun& folded);
  };
  // An open call. Until something in it is written (`detailed`), it may still be folded.
  struct Frame {
    std::string name;  // "" for the bottom frame, outside every call
    Clock::time_point start;
    ShortRun run;
    bool detailed = false;
  };

  double microseconds(Clock::time_point t) const;  // since the trace began
  static double microseconds_between(Clock::time_point from, Clock::time_point to);
  void write_event(const std::string& json);
  void write_instruction(const Instruction& ins);
  void flush(ShortRun& run);
  void detail_open_calls();  // something is written at the top: every open call will show

  std::ofstream out_;
  std::string path_;
  Clock::time_point origin_;
  bool first_event_ = true;
  bool finished_ = false;
  std::vector<Frame> frames_;  // frames_[0] is the bottom frame
  std::uint64_t last_host_bytes_ = UINT64_MAX, last_device_bytes_ = UINT64_MAX;
  std::size_t events_written_ = 0;
  std::chrono::nanoseconds short_span_ = initial_short_span;  // doubled as events are written
  std::chrono::nanoseconds short_call_ = initial_short_call;
};

}  // namespace vm
