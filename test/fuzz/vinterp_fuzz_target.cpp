// vinterp_fuzz: the libFuzzer target (test/fuzz/README.md). Each input is VCODE text: it is
// parsed, checked by the verifier, and run on cvl-cpu at one thread as `vinterp --sandbox
// --max-memory 256K --max-call-depth 64` would run it. Whatever the input, this must end with a
// parse error, a runtime error of the program or a normal end: a crash, a sanitizer report, a
// broken verifier invariant, an internal error of vinterp or a hang is a finding.
//
// Inputs the harness does not run (they are not findings): a program that may execute more than
// `max_steps` instructions (VCODE has no loops, so a static bound exists; an exponential call
// tree is a legitimate slow program, not a hang), and one that uses FCLOSE (it would close the
// fuzzer's own standard streams; the sandbox leaves no other stream open).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cvl/errors.hpp"
#include "cvl/registry.hpp"
#include "vcode/diagnostics.hpp"
#include "vcode/parser.hpp"
#include "vcode/verify.hpp"
#include "vm/error_report.hpp"
#include "vm/machine.hpp"

namespace {

constexpr std::uint64_t max_steps = 20000;
constexpr std::size_t max_call_depth = 64;
constexpr std::uint64_t max_memory = 256 * 1024;  // with max_steps, bounds the work of a run
constexpr std::size_t max_input = 64 * 1024;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "vinterp_fuzz: FINDING: %s\n", what.c_str());
  std::abort();
}

// An upper bound on the instructions one run may execute: a function body runs each of its
// instructions at most once per call (IF and ELSE jump forward), and calls nest at most
// max_call_depth deep. Saturates at max_steps + 1.
class StepBound {
 public:
  explicit StepBound(const vcode::Program& p) : program_(p) {
    for (std::uint32_t f = 0; f < p.functions.size(); ++f) function_at_[p.functions[f].first] = f;
  }
  std::uint64_t of_entry() { return steps(program_.entry_function, 1); }

 private:
  std::uint64_t steps(std::uint32_t f, std::size_t depth) {
    const auto key = std::make_pair(f, depth);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const auto& fn = program_.functions[f];
    std::uint64_t total = fn.end - fn.first;
    for (std::uint32_t pc = fn.first; pc < fn.end && total <= max_steps; ++pc) {
      const auto& ins = program_.code[pc];
      if (ins.op != vcode::Op::Call || depth >= max_call_depth) continue;  // deeper: an error
      const auto callee = function_at_.find(ins.target);
      if (callee == function_at_.end()) return memo_[key] = max_steps + 1;  // not a function start
      total += steps(callee->second, depth + 1);
    }
    return memo_[key] = std::min(total, max_steps + 1);
  }

  const vcode::Program& program_;
  std::map<std::uint32_t, std::uint32_t> function_at_;
  std::map<std::pair<std::uint32_t, std::size_t>, std::uint64_t> memo_;
};

// Sends what a run writes on stderr (WRITE, its failure line) to /dev/null, without touching
// libFuzzer's stream between runs.
class StderrSilencer {
 public:
  StderrSilencer() : null_(open("/dev/null", O_WRONLY)) {}
  void begin() {
    std::fflush(stderr);
    saved_ = dup(2);
    dup2(null_, 2);
  }
  void end() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
  }

 private:
  int null_;
  int saved_ = -1;
};

}  // namespace

// The sanitizers' own report stream, when they are linked in: reports must reach the real stderr
// even while a run's stderr is silenced.
extern "C" void __sanitizer_set_report_fd(void* fd) __attribute__((weak));

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // READ and FREAD_CHAR of stream 0 read nothing; the final stack goes nowhere.
  if (!std::freopen("/dev/null", "r", stdin) || !std::freopen("/dev/null", "w", stdout)) std::abort();
  if (__sanitizer_set_report_fd) __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(dup(2))));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > max_input) return -1;
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  vcode::Program program;
  try {
    program = vcode::parse_program(source, "fuzz.vcode");
  } catch (const vcode::LoadError&) {
    return 0;  // a parse error: the expected answer to most inputs
  }
  if (const auto problems = vcode::verify_program(program); !problems.empty())
    finding("the parser accepted a program the verifier rejects: " + problems.front());
  for (const auto& ins : program.code)
    if (ins.op == vcode::Op::FClose) return -1;
  if (StepBound(program).of_entry() > max_steps) return -1;

  cvl::BackendOptions backend_options;
  backend_options.threads = 1;
  backend_options.max_memory = max_memory;
  vm::MachineOptions options;
  options.sandbox = true;
  options.max_call_depth = max_call_depth;
  static StderrSilencer silencer;
  silencer.begin();
  // The failure's kind comes from the machine: on stderr, the program's own WRITEs may look
  // like a failure line (two false findings did), or run into the real one.
  std::optional<vm::Failure> failure;
  try {
    auto backend = cvl::make_backend("cpu", backend_options);
    vm::Machine machine(program, *backend, options);
    machine.run();
    failure = machine.reported_failure();
  } catch (...) {  // loading the constants failed; run() reports its own failures
    failure = vm::current_failure();
  }
  silencer.end();
  if (failure && failure->kind != vm::FailureKind::Data)
    finding(std::string(failure->kind == vm::FailureKind::Device ? "device failure: " : "internal error: ") +
            failure->message);
  return 0;
}
