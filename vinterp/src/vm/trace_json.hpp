// --trace-json FILE: the run as a timeline in the Chrome trace-event format (Perfetto and
// chrome://tracing open it): one span per instruction, nested in spans for the VCODE function
// calls, each with its opcode, type, element count and the backend's launches, syncs and bytes;
// a counter track of vector memory in use; spans for loading and -O before the run.
//
// Size: instructions in a row that are each shorter than `short_span` and do no backend work
// (stack moves, scalar arithmetic on the host) share one span that counts them, so a program of
// 150,000 instructions makes a file of a few MB rather than tens. Events are written as they
// come (one JSON object per line), so memory does not grow with the run.
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
  static constexpr std::chrono::nanoseconds short_span{1000};

  // Opens `path` (times count from now); throws std::runtime_error naming it when it cannot.
  TraceJson(const std::string& path, const std::string& process_name);
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
  struct OpenFunction {
    std::string name;
    Clock::time_point start;
  };
  // Short instructions waiting to be written as one span.
  struct ShortRun {
    std::size_t count = 0;
    Clock::time_point start, end;
    std::map<std::string, std::size_t, std::less<>> opcodes;
    Instruction first;  // written as itself when it stays alone
  };

  double microseconds(Clock::time_point t) const;
  void write_event(const std::string& json);
  void write_instruction(const Instruction& ins);
  void flush_short_run();

  std::ofstream out_;
  std::string path_;
  Clock::time_point origin_;
  bool first_event_ = true;
  bool finished_ = false;
  std::vector<OpenFunction> functions_;
  ShortRun run_;
  std::uint64_t last_host_bytes_ = UINT64_MAX, last_device_bytes_ = UINT64_MAX;
};

}  // namespace vm
