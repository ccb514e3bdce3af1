// nesl_difffuzz: differential testing of the NESL compiler (README.md here, "The NESL fuzzer").
// Each random well-typed program (nesl_program_generator.hpp) is compiled by `nesl --vcode` and
// run by vinterp at one thread (the reference) and by every other run we have: vinterp at all
// threads, on cuda-emulated with late device work, optimized (-O), on the mpi backend at two
// processes, and the classic interpreter. Each must print what the reference printed (FLOAT
// tokens within a relative 1e-9 where sums may regroup, exact on the classic). `nesl --threads 1
// FILE` (the in-process run) must print the reference's value as the REPL prints it.
//
//   nesl_difffuzz --nesl PATH --vinterp PATH [--classic PATH] [--mpiexec PATH [--mpi-every N]]
//                 [--known FILE]
//                 [--seed N] [--count K] [--seconds S] [--minimize] [--out DIR] [--verbose]
//                 [--program FILE]...
//
// Programs are seeds N, N+1, ... until K programs or S seconds (default: 100 programs); with
// --program, the given files instead. An mpirun costs about a second, so --mpi-every N runs the
// mpi variant on one program in N (the first of each N). First, every bug of the known list must still reproduce.
// A disagreement prints one FAIL line per run and saves the program under --out (with
// --minimize, also a smaller one that still disagrees). Exit status 0 when everything agreed,
// 1 otherwise, 2 for a bad command line.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime_notes.hpp"
#include "differential_support.hpp"
#include "minimize.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/result_layout.hpp"
#include "nesl/result_reader.hpp"
#include "nesl/source.hpp"
#include "nesl/types.hpp"
#include "nesl/value_printer.hpp"
#include "nesl_known_bugs.hpp"
#include "nesl_program_generator.hpp"

namespace fs = std::filesystem;

namespace {

using fuzz::Disagreement;

constexpr double process_timeout_seconds = 60.0;
// Where threads, the device or processes may regroup a FLOAT sum (and fast math at all threads).
constexpr double regrouped_float_tolerance = 1e-9;

struct Options {
  std::string nesl, vinterp, classic, mpiexec;
  std::uint64_t mpi_every = 1;
  fuzz::LoopOptions loop;
};

Options parse_options(int argc, char** argv) {
  fuzz::CommandLine line(
      argc, argv, "nesl_difffuzz",
      "usage: nesl_difffuzz --nesl PATH --vinterp PATH [--classic PATH] [--mpiexec PATH [--mpi-every N]]\n"
      "                     [--known FILE] [--seed N] [--count K] [--seconds S] [--minimize]\n"
      "                     [--out DIR] [--verbose] [--program FILE]...\n");
  Options o;
  o.loop.known = NESL_FUZZ_KNOWN_BUGS;
  o.loop.out = "nesl-fuzz-failures";
  while (line.next()) {
    if (line.word() == "--nesl") o.nesl = line.value();
    else if (line.word() == "--vinterp") o.vinterp = line.value();
    else if (line.word() == "--classic") o.classic = line.value();
    else if (line.word() == "--mpiexec") o.mpiexec = line.value();
    else if (line.word() == "--mpi-every")
      o.mpi_every = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(line.number()));
    else if (!line.read_loop_option(o.loop)) line.fail("unknown argument " + line.word());
  }
  if (o.nesl.empty() || o.vinterp.empty()) line.fail("--nesl and --vinterp are required");
  return o;
}

// A run of the compiled program: the command before the VCODE file's path.
struct Variant {
  std::string name;
  std::vector<std::string> command;
  double float_tolerance = regrouped_float_tolerance;
};

class Fuzzer {
 public:
  explicit Fuzzer(Options options);
  int run();

 private:
  std::vector<Disagreement> check(const std::string& text, const std::string& only_run = "");
  std::optional<std::string> expected_in_process(const std::string& text, const corpus::ProcessResult& reference,
                                                 int& expected_status);
  void report(const std::string& label, const std::string& text, const std::vector<Disagreement>& found);
  bool check_known_bugs();

  Options options_;
  std::vector<fuzz::KnownNeslBug> known_;
  fuzz::NeslGeneratorOptions generator_;
  std::vector<Variant> variants_;
  nesl::Basis basis_;
  fuzz::ScratchRuns scratch_{"nesl_difffuzz", process_timeout_seconds};
  const fuzz::ProgramLoop* loop_ = nullptr;  // run()'s, whose count of programs picks the mpi runs
};

Fuzzer::Fuzzer(Options options) : options_(std::move(options)), basis_(nesl::load_embedded_basis()) {
  if (!options_.loop.known.empty()) known_ = fuzz::load_known_nesl_bugs(options_.loop.known);
  for (const auto& bug : known_) generator_.avoid.insert(bug.avoid.begin(), bug.avoid.end());
  // Runs start in the scratch directory: every path must be absolute.
  options_.nesl = fs::absolute(options_.nesl).string();
  options_.vinterp = fs::absolute(options_.vinterp).string();
  const auto version = scratch_.run({options_.vinterp, "--version"});
  if (!version.exited || version.exit_code != 0) throw std::runtime_error("cannot run " + options_.vinterp);
  auto has_backend = [&](const std::string& name) { return version.out.find(" " + name) != std::string::npos; };
  const std::string& vi = options_.vinterp;
  variants_.push_back({"threads-all", {vi}});
  variants_.push_back({"optimized", {vi, "-O"}});
  if (has_backend("cuda-emulated"))
    variants_.push_back({"cuda-emulated", {vi, "--backend", "cuda-emulated", "--emulate-async", "1"}});
  if (!options_.mpiexec.empty() && has_backend("mpi")) {
    // The tests' MPI environment (cvl-mpi/CMakeLists.txt, `,` for `;`), unless the caller set its own.
    std::istringstream settings(NESL_MPI_ENVIRONMENT);
    for (std::string setting; std::getline(settings, setting, ',');)
      if (const auto eq = setting.find('='); eq != std::string::npos)
        setenv(setting.substr(0, eq).c_str(), setting.substr(eq + 1).c_str(), 0);
    variants_.push_back({"mpi-np2", {options_.mpiexec, "-q", "--oversubscribe", "-np", "2", vi, "--backend", "mpi"}});
  } else if (!options_.mpiexec.empty()) {
    std::printf("nesl_difffuzz: %s has no mpi backend; the mpi run is left out\n", vi.c_str());
  }
  if (!options_.classic.empty() && access(options_.classic.c_str(), X_OK) == 0) {
    // -m: the arena in 8-byte words; untouched pages cost nothing. Sequential: exact.
    variants_.push_back({"classic", {fs::absolute(options_.classic).string(), "-m", "200000000"}, 0.0});
  } else if (!options_.classic.empty()) {
    std::printf("nesl_difffuzz: no classic interpreter at %s; that run is left out\n", options_.classic.c_str());
  }
}

// What `nesl --threads 1 FILE` must print, from the reference run of the same program: each
// function's type as the REPL prints it, then the value read back by its type, or the runtime
// error. Empty when the program does not check (already reported by the compile).
std::optional<std::string> Fuzzer::expected_in_process(const std::string& text, const corpus::ProcessResult& reference,
                                                       int& expected_status) {
  nesl::CheckedProgram checked;
  try {
    const nesl::Program program = nesl::parse_program(std::make_shared<nesl::SourceFile>("program.nesl", text));
    checked = nesl::check_program(program, basis_);
  } catch (const nesl::CompileError&) {
    return std::nullopt;
  }
  std::string out;
  expected_status = 0;
  for (const nesl::FormType& form : checked.forms) {
    if (form.is_function) {
      out += nesl::layout_result(form.name, "fn", nesl::print_type(form.type, true));
      continue;
    }
    // A runtime error: the program's message went to stderr and nothing to stdout.
    if (reference.out.empty() && !reference.err.empty()) {
      out += "Error at top level.  \nError while running VCODE.\n";
      expected_status = 1;
      continue;
    }
    try {
      const nesl::Value value = nesl::read_result(reference.out, form.type, checked.datatype_constructors);
      out += nesl::layout_result(form.name, nesl::print_value(value), nesl::print_type(form.type, true));
    } catch (const nesl::ResultError& error) {
      out += std::string("Error at top level.  \n") + error.what() + "\n";
      expected_status = 1;
    }
  }
  return out;
}

// Every run of the program against the reference; with `only_run`, that one (minimizing).
std::vector<Disagreement> Fuzzer::check(const std::string& text, const std::string& only_run) {
  const fs::path source = scratch_.path() / "program.nesl", vcode = scratch_.path() / "program.vcode";
  fuzz::write_text(source, text);
  std::vector<Disagreement> found;
  const auto compiled = scratch_.run({options_.nesl, "--vcode", source.string(), "-o", vcode.string()});
  if (!compiled.exited || compiled.exit_code != 0) {
    found.push_back({"compile", "nesl --vcode failed: " + fuzz::describe_status(compiled)});
    return found;
  }
  if (only_run == "compile") return found;
  const corpus::ProcessResult reference = scratch_.run({options_.vinterp, "--threads", "1", vcode.string()});
  if (!reference.exited || reference.exit_code != 0) {
    found.push_back({"reference", "vinterp --threads 1 failed: " + fuzz::describe_status(reference)});
    return found;
  }
  for (const Variant& v : variants_) {
    if (!only_run.empty() && v.name != only_run) continue;
    if (v.name == "mpi-np2" && only_run.empty() && loop_->programs() % options_.mpi_every != 1 % options_.mpi_every)
      continue;
    std::vector<std::string> command = v.command;
    command.push_back(vcode.string());
    const corpus::ProcessResult r = scratch_.run(command);
    if (r.timed_out || !r.exited || r.exit_code != reference.exit_code) {
      found.push_back({v.name, fuzz::describe_status(r)});
      continue;
    }
    corpus::CompareRules rules;
    rules.float_tolerance = v.float_tolerance;
    if (auto difference = fuzz::first_difference(reference.out, reference.err, r, rules, "reference"))
      found.push_back({v.name, *difference});
  }
  if (only_run.empty() || only_run == "in-process") {
    int expected_status = 0;
    if (const auto expected = expected_in_process(text, reference, expected_status)) {
      // The REPL prints a runtime error's message without the blank line before it.
      std::string expected_err;
      if (expected_status != 0 && reference.out.empty())
        if (const auto start = reference.err.find_first_not_of('\n'); start != std::string::npos)
          expected_err = reference.err.substr(start);
      auto r = scratch_.run({options_.nesl, "--threads", "1", source.string()});
      r.err = nesl_test::without_runtime_notes(r.err);
      corpus::CompareRules exact;
      if (r.timed_out || !r.exited || r.exit_code != expected_status) {
        found.push_back(
            {"in-process", fuzz::describe_status(r) + ", expected status " + std::to_string(expected_status)});
      } else if (auto difference = fuzz::first_difference(*expected, expected_err, r, exact, "expected")) {
        found.push_back({"in-process", *difference});
      }
    }
  }
  return found;
}

void Fuzzer::report(const std::string& label, const std::string& text, const std::vector<Disagreement>& found) {
  fuzz::save_failure(options_.loop.out, label, "nesl", text, found);
  if (options_.loop.minimize) {
    // Whole lines (functions, then the expression) are left out while the same run still
    // disagrees and the program still compiles.
    const std::string run = found.front().run;
    auto still_fails = [&](const std::string& candidate) {
      for (const auto& d : check(candidate, run == "reference" ? "" : run))
        if (d.run == run) return true;
      return false;
    };
    const std::string smaller = fuzz::minimize_lines(text, still_fails, 200);
    const fs::path min_path = fs::path(options_.loop.out) / (label + ".min.nesl");
    fuzz::write_text(min_path, smaller);
    std::printf("  minimized: %s (%zu bytes)\n", min_path.c_str(), smaller.size());
  }
  std::fflush(stdout);
}

// Each listed bug must still show in its run; one that does not fails the run.
bool Fuzzer::check_known_bugs() {
  bool all_reproduce = true;
  for (const auto& bug : known_) {
    const std::string text = fuzz::read_text(bug.program);
    bool reproduces = false;
    if (!text.empty())
      for (const auto& d : check(text, bug.run == "reference" ? "" : bug.run))
        if (d.run == bug.run) reproduces = true;
    if (!reproduces) {
      std::printf("FAIL known bug [%s] no longer reproduces in %s (%s): remove it from %s and its avoid list\n",
                  bug.name.c_str(), bug.run.c_str(), bug.program.c_str(), options_.loop.known.c_str());
      all_reproduce = false;
    } else if (options_.loop.verbose) {
      std::printf("known bug [%s] still reproduces in %s\n", bug.name.c_str(), bug.run.c_str());
    }
  }
  return all_reproduce;
}

int Fuzzer::run() {
  std::string names;
  for (const auto& v : variants_) names += " " + v.name;
  std::printf("nesl_difffuzz: reference threads-1; runs%s in-process; %zu known bugs\n", names.c_str(), known_.size());
  std::fflush(stdout);
  fuzz::ProgramLoop loop(options_.loop, 200);
  loop_ = &loop;
  const bool known_ok = check_known_bugs();
  loop.run([&](std::uint64_t seed) { return fuzz::generate_nesl_program(seed, generator_).text; },
           [&](const std::string& label, const std::string& text) {
             const auto found = check(text);
             if (!found.empty()) report(label, text, found);
             return found.empty();
           });
  loop_ = nullptr;
  std::printf("nesl_difffuzz: %llu programs (from seed %llu), %llu runs, %llu disagreeing, %.0f s\n",
              static_cast<unsigned long long>(loop.programs()), static_cast<unsigned long long>(options_.loop.seed),
              static_cast<unsigned long long>(scratch_.runs()), static_cast<unsigned long long>(loop.disagreeing()),
              loop.elapsed_seconds());
  return loop.disagreeing() == 0 && known_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Fuzzer fuzzer(parse_options(argc, argv));
    return fuzzer.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nesl_difffuzz: %s\n", e.what());
    return 2;
  }
}
