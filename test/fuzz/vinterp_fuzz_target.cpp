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
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
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

// Collects what the machine writes on stderr during a run (its error line tells an internal
// error from the program's own), without touching libFuzzer's stream between runs.
class StderrCapture {
 public:
  StderrCapture() : fd_(memfd_create("vinterp_fuzz_stderr", 0)) {}
  void begin() {
    std::fflush(stderr);
    saved_ = dup(2);
    ftruncate(fd_, 0);
    lseek(fd_, 0, SEEK_SET);
    dup2(fd_, 2);
  }
  std::string end() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    std::string text(static_cast<std::size_t>(lseek(fd_, 0, SEEK_CUR)), '\0');
    if (!text.empty()) pread(fd_, text.data(), text.size(), 0);
    return text;
  }

 private:
  int fd_;
  int saved_ = -1;
};

}  // namespace

// The sanitizers' own report stream, when they are linked in: reports must reach the real stderr
// even while a run's stderr is captured.
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
  static StderrCapture capture;
  capture.begin();
  std::string internal;
  int status = 0;
  try {
    auto backend = cvl::make_backend("cpu", backend_options);
    vm::Machine machine(program, *backend, options);
    status = machine.run();
  } catch (...) {  // loading the constants failed; run() reports its own failures on stderr
    const vm::Failure failure = vm::current_failure();
    if (failure.kind != vm::FailureKind::Data) internal = failure.message;
  }
  const std::string err = capture.end();
  if (!internal.empty()) finding("internal error while loading: " + internal);
  // A failed run ends with its failure line (whatever the program wrote before it); a run that
  // ended normally may itself have written text like one (WRITE goes to stderr).
  if (status == 0) return 0;
  const std::string last = err.substr(err.rfind('\n', err.size() >= 2 ? err.size() - 2 : 0) + 1);
  if (last.starts_with("vinterp: internal error") || last.starts_with("vinterp: device failure"))
    finding("vinterp reported: " + last);
  return 0;
}
