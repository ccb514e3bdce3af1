// The VCODE virtual machine: a value stack of handles, a return stack, and a plain switch
// that hands vector work to the CVL backend (spec/VCODE.md §4).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cvl/backend.hpp"
#include "cvl/shape_rules.hpp"
#include "cvl/random.hpp"
#include "error_report.hpp"
#include "profile.hpp"
#include "shared_result.hpp"
#include "trace_json.hpp"
#include "value.hpp"
#include "vcode/program.hpp"

namespace vm {

// The classic `-d` switches (spec/VCODE.md §10) that this interpreter honours.
struct DebugSwitches {
  bool program = false;  // list the parsed program on stderr
  bool command = false;  // each instruction before it runs
  bool stack = false;    // stack shapes before each instruction
  bool values = false;   // stack contents before each instruction
  bool runtime = false;  // CALL / RET
  bool abort = false;    // abort() on a fatal error
};

struct MachineOptions {
  bool time_program = false;  // -t
  bool trace = false;         // --trace: instruction and stack shapes, on stderr
  bool profile = false;       // --profile: per-opcode table on stderr at the end
  bool speculation = false;   // --speculation: the backend may guess lengths
  bool sandbox = false;       // --sandbox: no SPAWN, no FOPEN (stdin, stdout, stderr still work)
  // --max-call-depth: a CALL this many frames deep is a runtime error. A frame is one return
  // address (4 bytes), so the default bounds the return stack at 4 MB, and a runaway recursion
  // that also keeps a few values per frame (48 bytes a handle) at a few hundred MB.
  static constexpr std::size_t default_max_call_depth = 1'000'000;
  std::size_t max_call_depth = default_max_call_depth;
  DebugSwitches debug;
  TraceJson* trace_json = nullptr;  // --trace-json: the timeline's writer, owned by the caller
  // --source-map with --profile: the NESL line of each VCODE line, owned by the caller.
  const SourceLines* source_lines = nullptr;
  double optimize_seconds = -1;     // -O: the optimizer's time before the run (for --profile)
  // For a caller that runs programs in its own process and prints their results its own way
  // (the nesl REPL): the final stack's text goes here instead of stdout, and a failure is not
  // printed, only returned (reported_failure()).
  std::string* final_stack = nullptr;
  bool print_failures = true;
  // Where a run that failed or ended with EXIT stopped, for a caller that maps instructions back
  // to its own source: the index of the instruction that stopped it, then the CALL of each frame
  // it was called from, innermost first (only the first when the fault was found late).
  std::vector<std::uint32_t>* stopped_at = nullptr;
  // Set from another thread or a signal handler (the REPL's Ctrl-C): the run stops with the
  // runtime error `interrupted_message` at its next CALL, where a long computation recurses.
  const std::atomic<bool>* interrupt = nullptr;
};

inline constexpr const char* interrupted_message = "interrupted";

// A VCODE runtime error found by the machine (a data error, like cvl::Error); the machine adds
// the function, instruction and line.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ReadVector;  // what READ parsed, on the host (exec_io.cpp)

class Machine {
 public:
  Machine(const vcode::Program& program, cvl::Backend& backend, MachineOptions options);
  ~Machine();

  // Runs from the entry function; returns the process exit status.
  int run();
  // The failure run() reported and returned 1 for, if any: its kind, without reading stderr,
  // where the program's own WRITEs may look alike.
  const std::optional<Failure>& reported_failure() const { return reported_failure_; }

 private:
  // What an operand letter of ops.def demands of a stack value.
  enum class Expect : std::uint8_t { Int, Float, Bool, Segdes, Pair, AnyVector, Any };

  // Per-instruction data computed once at load time.
  struct Prepared {
    std::uint8_t arity = 0;
    std::array<Expect, 6> expect{};
    cvl::Type type = cvl::Type::Int;  // element type the op works on
    Value constant;                   // CONST: the value pushed
  };

  void prepare();
  Value make_constant(const vcode::Constant& c);
  void execute(const vcode::Instruction& ins, const Prepared& prep);
  void check_operands(const vcode::Instruction& ins, const Prepared& prep);
  [[noreturn]] void fail(const std::string& message);           // the program's fault
  [[noreturn]] void fail_internal(const std::string& message);  // a broken invariant: our bug
  // Prints the located failure; the exit status. Called while handling it (a DeferredError names
  // the instruction that caused it, not the current one).
  int report_error(const Failure& failure);
  std::string location() const;
  // Fills options_.stopped_at from pc_ and, unless `only_pc`, the return stack.
  void record_stop(bool only_pc);

  // Families (exec_*.cpp).
  void exec_stack(const vcode::Instruction& ins);
  void exec_vector(const vcode::Instruction& ins, const Prepared& prep);
  void exec_io(const vcode::Instruction& ins, const Prepared& prep);
  void exec_fused(const vcode::Instruction& ins);  // FCODE `FUSED n` (exec_fused.cpp)

  // Length rules (length_checks.cpp). Known lengths are compared at once; a rule that involves
  // a pending length (cvl/length.hpp) is kept and checked at the next synchronization, and a
  // failure then names the instruction that made the check. `message` turns the two counts into
  // the error text.
  using LengthMessage = std::function<std::string(std::size_t, std::size_t)>;
  void require_equal(const cvl::Length& a, const cvl::Length& b, LengthMessage message);
  // Each of an instruction's length rules (vcode/length_rules.hpp) over its operands' counts.
  void require_length_rules(std::span<const vcode::LengthRule> rules,
                            std::span<const cvl::RuleOperand> operands);
  // `n` at most `limit`.
  void require_at_most(const cvl::Length& n, std::size_t limit, LengthMessage message);
  // Runs the kept checks whose lengths are known now (after a synchronization).
  void run_ready_checks();
  // Runs every kept check, synchronizing first if one still waits on the device: before output
  // and at the end, so that nothing computed from mismatched operands reaches the user.
  void run_all_checks();
  // Reads elements [first, first + count) of a vector to the host, then runs the checks the
  // read made ready.
  void download(const Value& v, std::size_t first, std::size_t count, void* out);

  // Stack helpers.
  Value pop();
  // A segment descriptor made from data (MAKE_SEGDES, READ SEGDES) as a value: the one place a
  // length comes from the program's data, so the one check that no vector exceeds 2^31 - 1
  // elements. It runs before anything of that length is allocated.
  Value segdes_from_data(cvl::Segdes sd);
  void push(Value v) { stack_.push_back(std::move(v)); }
  Value& from_top(std::size_t depth) { return stack_[stack_.size() - 1 - depth]; }
  Value int_scalar(std::int32_t x);
  Value bool_scalar(bool x);
  Value float_scalar(double x);
  Value host_ints(const std::vector<std::int32_t>& xs);
  std::int32_t read_int(const Value& v, std::size_t i);
  std::vector<std::int32_t> read_ints(const Value& v);

  // Output (format.cpp, exec_io.cpp).
  std::string format_value(const Value& v);
  void dump_stack();
  // --profile's report: every process gathers (a collective), the io root prints.
  void print_profile(double wall_seconds);
  void trace(const vcode::Instruction& ins);
  // --trace-json: the span of one instruction, and the call or return it makes.
  // --profile's work column: the lengths an instruction reads (before it runs) and writes (after).
  std::vector<cvl::Length> operand_work_lengths(const vcode::Instruction& ins, std::size_t arity);
  // --source-map: the NESL line the instruction at pc_ counts for (SourceLines::place_of).
  std::int32_t source_place() const;
  void add_result_work_lengths(const vcode::Instruction& ins, std::vector<cvl::Length>& lengths);
  // --profile's minimum device traffic (Profile::record_minimum): the operands an instruction
  // reads (before it runs), then its results (after).
  Profile::Footprint operand_footprint(const vcode::Instruction& ins, std::size_t arity);
  void add_result_footprint(const vcode::Instruction& ins, Profile::Footprint& footprint);
  void trace_instruction(const vcode::Instruction& ins, std::uint64_t elements,
                         TraceJson::Clock::time_point start, TraceJson::Clock::time_point end,
                         const cvl::BackendStats& before, const cvl::BackendStats& after);
  // Device clock mark `mark` (cvl::DeviceClock::stamp_device_clock) on the host's clock.
  TraceJson::Clock::time_point device_time(int mark);
  std::string stack_shapes() const;

  // I/O instructions and their helpers (exec_io.cpp, exec_spawn.cpp).
  void exec_srand(const vcode::Instruction& ins);
  void exec_write(const vcode::Instruction& ins);
  void exec_read(const vcode::Instruction& ins);
  void exec_fopen(const vcode::Instruction& ins);
  void exec_fclose(const vcode::Instruction& ins);
  void exec_fread_char(const vcode::Instruction& ins);
  // The INT scalar `depth` entries below the top; an error naming `what` for anything else.
  std::int32_t int_scalar_operand(const vcode::Instruction& ins, std::size_t depth,
                                  const char* what);
  void push_status(const std::string& message);
  bool valid_stream(std::int32_t fd) const;
  std::int32_t free_stream() const;  // the first stream FOPEN or SPAWN may open; -1 for none
  Value read_value(const ReadVector& read, vcode::TypeKeyword type);
  Value failed_read_value(vcode::TypeKeyword type);
  void exec_spawn();
  // SPAWN's effect, on the io root (exec_spawn.cpp).
  std::string spawn(const std::string& command, const std::int32_t fds[3],
                    std::int32_t result_fd[3]);

  // An effect on the outside world: `effect` runs on the io root only (cvl::DistributedIo)
  // and writes what it found; every process then reads the root's results back from what this
  // returns. Every process calls it at the same point (the share is a collective), and pushes
  // what it read with the same backend calls. An effect that throws (out of memory) fails every
  // process, rather than leaving the others waiting.
  template <typename Effect>
  SharedResult on_io_root(Effect effect) {
    SharedResult result;
    if (io_.is_io_root()) {
      try {
        effect(result);
      } catch (...) {
        result = SharedResult::failure(current_failure().message);
      }
    }
    io_.share_from_io_root(result.bytes());
    if (result.failed()) {
      std::string message;
      result >> message;
      fail(message);
    }
    return result;
  }

  const vcode::Program& program_;
  cvl::Backend& backend_;
  // The backend's capabilities (cvl/backend.hpp), or those of a single host process.
  cvl::DistributedIo& io_;
  cvl::Speculation& guesses_;
  cvl::OperationSites* const sites_;  // null: the backend is not told each instruction
  MachineOptions options_;
  // --profile on a backend that counts its vector memory: its peak is read after each
  // instruction (null: not read).
  cvl::VectorMemory* const memory_;
  std::vector<Prepared> prepared_;
  std::vector<Value> stack_;
  std::vector<std::uint32_t> returns_;
  std::uint32_t pc_ = 0;
  cvl::RandomStream random_;
  // The VCODE streams (0, 1, 2: stdin, stdout, stderr). Which are open is the same on every
  // process of a distributed run (FOPEN, FCLOSE and SPAWN open and close them from the io root's
  // shared results); only the io root holds the files.
  struct Stream {
    bool open = false;
    std::FILE* file = nullptr;
  };
  std::array<Stream, 256> streams_{};
  std::chrono::steady_clock::time_point timer_start_{};
  Profile profile_;
  std::optional<Failure> reported_failure_;
  // --trace-json on a backend with a device clock: spans take the device's times, counted from
  // its mark 0, taken at this host time (null: no clock, or no --trace-json).
  cvl::DeviceClock* device_clock_ = nullptr;
  std::chrono::steady_clock::time_point device_origin_{};
  // Per SUPEROP n: the backend's plan (its analysis gives the length rules), made at load.
  std::vector<std::unique_ptr<cvl::PreparedSuperOp>> superops_;
  std::vector<std::vector<vcode::LengthRule>> superop_rules_;  // per SUPEROP n: its length rules
  std::vector<cvl::FusedOperand> fused_operands_;  // FUSED's operand buffer, empty between calls

  struct KeptCheck {
    cvl::Length a, b;
    std::uint32_t pc;  // the instruction that made it
    std::function<bool(std::size_t, std::size_t)> holds;
    LengthMessage message;
  };
  std::vector<KeptCheck> kept_checks_;
  std::uint64_t syncs_checked_ = 0;  // the backend's host syncs when the kept checks last ran

  // Speculation (cvl::Speculation): the machine's state at the last point where
  // everything computed was certain (after a synchronization, with no guess outstanding). When
  // a guess fails, the machine goes back there and runs without guessing up to the next such
  // point. Effects that cannot be taken back (output, files, timers) settle first, so none lies
  // inside a region that may run again.
  struct Checkpoint {
    std::vector<Value> stack;
    std::vector<std::uint32_t> returns;
    std::uint32_t pc = 0;
    cvl::RandomStream random;
    std::vector<KeptCheck> kept_checks;
    std::uint64_t syncs_checked = 0;
    std::uint64_t syncs = 0;  // the backend's host syncs when it was taken
  };
  bool speculation_ = false;  // whether this run lets the backend guess at all
  bool guessing_ = false;     // whether it may guess now (not while running a region again)
  bool effect_since_checkpoint_ = false;  // I/O ran since the checkpoint: take one after it
  std::uint64_t instructions_since_checkpoint_ = 0;
  // Stack entries a checkpoint may copy per instruction run since the last one (amortized cost).
  static constexpr std::uint64_t kCheckpointEntriesPerInstruction = 16;
  Checkpoint checkpoint_;
  // Takes a checkpoint if the backend synchronized since the last one and nothing is guessed.
  void checkpoint_if_certain();
  void take_checkpoint();
  // Back to the checkpoint after cvl::SpeculationFailed, guessing off until the next one.
  void return_to_checkpoint();
  // Runs instructions from pc_ to the final RET.
  void run_instructions(bool instrumented);
};

}  // namespace vm
