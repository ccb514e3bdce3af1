// vcode_difffuzz: differential fuzzing (test/fuzz/README.md). Each random valid program
// (program_generator.hpp) runs through the classic interpreter and through every variant of ours:
// vinterp on cvl-cpu at one thread and at all threads, on cuda-emulated with every operation on
// the "device" and with the default host threshold (each at once and with --emulate-async), and
// each of those after fcode-opt. Every
// variant must print what the reference prints (the classic; without it, cvl-cpu at one thread),
// byte for byte except for the relaxations of known_differences.txt.
//
//   vcode_difffuzz --vinterp PATH [--optimizer PATH] [--classic PATH] [--known FILE]
//                  [--seed N] [--count K] [--seconds S] [--minimize] [--out DIR] [--verbose]
//                  [--program FILE]...
//
// Programs are seeds N, N+1, ... until K programs or S seconds (default: 100 programs); with
// --program, the given files instead. A disagreement prints one FAIL line and writes the program
// (and with --minimize a smaller one that still disagrees) under --out. Exit status 0 when every
// program agreed, 1 otherwise, 2 for a bad command line.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "differential_support.hpp"
#include "known_differences.hpp"
#include "minimize.hpp"
#include "program_generator.hpp"

namespace fs = std::filesystem;

namespace {

using fuzz::Disagreement;

constexpr double process_timeout_seconds = 120.0;

struct Options {
  std::string vinterp, optimizer, classic;
  fuzz::LoopOptions loop;
};

Options parse_options(int argc, char** argv) {
  fuzz::CommandLine line(
      argc, argv, "vcode_difffuzz",
      "usage: vcode_difffuzz --vinterp PATH [--optimizer PATH] [--classic PATH] [--known FILE]\n"
      "                      [--seed N] [--count K] [--seconds S] [--minimize] [--out DIR]\n"
      "                      [--verbose] [--program FILE]...\n");
  Options o;
  o.loop.known = NESL_FUZZ_KNOWN_DIFFERENCES;
  o.loop.out = "fuzz-failures";
  while (line.next()) {
    if (line.word() == "--vinterp") o.vinterp = line.value();
    else if (line.word() == "--optimizer") o.optimizer = line.value();
    else if (line.word() == "--classic") o.classic = line.value();
    else if (!line.read_loop_option(o.loop)) line.fail("unknown argument " + line.word());
  }
  if (o.vinterp.empty()) line.fail("--vinterp is required");
  return o;
}

struct Variant {
  std::string name;
  std::vector<std::string> args;  // after the vinterp path
  bool fcode = false;             // runs fcode-opt's output
};

class Fuzzer {
 public:
  explicit Fuzzer(Options options);
  int run();

 private:
  std::vector<Disagreement> check(const std::string& text, const std::string& only_variant = "");
  corpus::ProcessResult run_vinterp(const Variant& v, const fs::path& vcode, const fs::path& fcode);
  corpus::ProcessResult run_classic(const fs::path& vcode);
  std::optional<std::string> optimize(const fs::path& vcode, const fs::path& fcode);
  void report(const std::string& label, const std::string& text, const std::vector<Disagreement>& found);
  std::string reference_name() const { return options_.classic.empty() ? "cpu-threads1" : "classic"; }

  Options options_;
  std::vector<fuzz::KnownDifference> known_;
  std::vector<Variant> variants_;
  fuzz::ScratchRuns scratch_{"vcode_difffuzz", process_timeout_seconds};
  std::uint64_t skipped_runs_ = 0;
};

Fuzzer::Fuzzer(Options options) : options_(std::move(options)) {
  known_ = fuzz::load_known_differences(options_.loop.known);
  // The backends this vinterp has (`--version` lists them).
  const auto version = corpus::run_process({fs::absolute(options_.vinterp).string(), "--version"},
                                           scratch_.path().string(), "/dev/null", process_timeout_seconds);
  if (!version.exited || version.exit_code != 0) throw std::runtime_error("cannot run " + options_.vinterp);
  const bool emulated = version.out.find("cuda-emulated") != std::string::npos;
  // All threads with the exact transcendentals (known_differences.txt [fast-math]).
  std::vector<Variant> base = {{"cpu-threads1", {"--threads", "1"}, false},
                               {"cpu-threads-all", {"--math", "exact"}, false}};
  if (emulated) {
    base.push_back({"cuda-emulated-device", {"--backend", "cuda-emulated", "--host-threshold", "0"}, false});
    base.push_back({"cuda-emulated-default", {"--backend", "cuda-emulated"}, false});
    // The device on a thread of its own, each operation late, new memory poisoned: a missing wait
    // becomes a wrong answer (cvl-cuda/README.md).
    base.push_back({"cuda-emulated-async-device",
                    {"--backend", "cuda-emulated", "--emulate-async", "1", "--host-threshold", "0"},
                    false});
    base.push_back(
        {"cuda-emulated-async-default", {"--backend", "cuda-emulated", "--emulate-async", "2"}, false});
  }
  variants_ = base;
  if (!options_.optimizer.empty())
    for (auto v : base) {
      v.name = "fcode-" + v.name;
      v.fcode = true;
      variants_.push_back(v);
    }
  if (!options_.classic.empty() && access(options_.classic.c_str(), X_OK) != 0) {
    std::printf("vcode_difffuzz: no classic interpreter at %s; the reference is cpu-threads1\n",
                options_.classic.c_str());
    options_.classic.clear();
  }
  // Runs start in the scratch directory: a relative path must not change meaning there.
  if (!options_.classic.empty()) options_.classic = fs::absolute(options_.classic).string();
}

corpus::ProcessResult Fuzzer::run_vinterp(const Variant& v, const fs::path& vcode, const fs::path& fcode) {
  std::vector<std::string> command{fs::absolute(options_.vinterp).string()};
  command.insert(command.end(), v.args.begin(), v.args.end());
  command.push_back((v.fcode ? fcode : vcode).string());
  return scratch_.run(command);
}

corpus::ProcessResult Fuzzer::run_classic(const fs::path& vcode) {
  // -m: the arena in 8-byte words; generated programs stay far below 1.6 GB (untouched pages cost
  // nothing).
  return scratch_.run({options_.classic, "-m", "200000000", vcode.string()});
}

std::optional<std::string> Fuzzer::optimize(const fs::path& vcode, const fs::path& fcode) {
  const auto r = scratch_.run({fs::absolute(options_.optimizer).string(), vcode.string(), "-o", fcode.string()});
  if (r.exited && r.exit_code == 0) return std::nullopt;
  return "fcode-opt failed (status " + std::to_string(corpus::shell_status(r)) + "): " + fuzz::first_line(r.err);
}

// Every run of the program against the reference; with `only_variant`, that one run (minimizing).
std::vector<Disagreement> Fuzzer::check(const std::string& text, const std::string& only_variant) {
  const fs::path vcode = scratch_.path() / "program.vcode", fcode = scratch_.path() / "program.fcode";
  fuzz::write_text(vcode, text);
  std::vector<Disagreement> found;
  const Variant threads1 = variants_.front();
  const corpus::ProcessResult reference =
      options_.classic.empty() ? run_vinterp(threads1, vcode, fcode) : run_classic(vcode);
  if (!reference.exited || reference.exit_code != 0) {
    found.push_back({reference_name(),
                     "the reference failed on a generated program: " + fuzz::describe_status(reference)});
    return found;  // an invalid program: nothing to compare against
  }
  bool optimized = false;
  if (!options_.optimizer.empty() && (only_variant.empty() || only_variant.starts_with("fcode"))) {
    if (auto problem = optimize(vcode, fcode)) found.push_back({"fcode-opt", *problem});
    else optimized = true;
  }
  for (const Variant& v : variants_) {
    if (!only_variant.empty() && v.name != only_variant) continue;
    if (options_.classic.empty() && v.name == threads1.name) continue;  // it is the reference
    if (v.fcode && !optimized) continue;
    const fuzz::VariantRules rules = fuzz::rules_for(known_, v.name, text);
    if (rules.skip) {
      ++skipped_runs_;
      continue;
    }
    const corpus::ProcessResult r = run_vinterp(v, vcode, fcode);
    if (!r.exited || r.exit_code != 0 || r.timed_out) {
      found.push_back({v.name, fuzz::describe_status(r)});
      continue;
    }
    corpus::CompareRules compare;
    compare.float_tolerance = rules.float_tolerance;
    compare.nan_sign_free = rules.nan_sign_free;
    if (auto difference = fuzz::first_difference(reference.out, reference.err, r, compare, reference_name()))
      found.push_back({v.name, *difference});
  }
  return found;
}

void Fuzzer::report(const std::string& label, const std::string& text, const std::vector<Disagreement>& found) {
  fuzz::save_failure(options_.loop.out, label, "vcode", text, found);
  if (options_.loop.minimize) {
    const Disagreement first = found.front();
    const fs::path vcode = scratch_.path() / "program.vcode", fcode = scratch_.path() / "program.fcode";
    auto still_fails = [&](const std::string& candidate) {
      // Still valid for us (our checks catch what the classic does not), still the same failure.
      fuzz::write_text(vcode, candidate);
      const auto ours = run_vinterp(variants_.front(), vcode, fcode);
      if (!ours.exited || ours.exit_code != 0) return false;
      const std::string only = first.run == reference_name() || first.run == "fcode-opt" ? "" : first.run;
      for (const auto& d : check(candidate, only))
        if (d.run == first.run) return true;
      return false;
    };
    const std::string smaller = fuzz::minimize_lines(text, still_fails);
    const fs::path min_path = fs::path(options_.loop.out) / (label + ".min.vcode");
    fuzz::write_text(min_path, smaller);
    const auto again = check(smaller);
    std::printf("  minimized: %s (%zu bytes)%s\n", min_path.c_str(), smaller.size(),
                again.empty() ? "" : (": " + again.front().run + ": " + again.front().what).c_str());
  }
  std::fflush(stdout);
}

int Fuzzer::run() {
  std::string names;
  for (const auto& v : variants_) names += " " + v.name;
  std::printf("vcode_difffuzz: reference %s; variants%s\n", reference_name().c_str(), names.c_str());
  std::fflush(stdout);
  fuzz::ProgramLoop loop(options_.loop, 500);
  loop.run([](std::uint64_t seed) { return fuzz::generate_program(seed).text; },
           [&](const std::string& label, const std::string& text) {
             const auto found = check(text);
             if (!found.empty()) report(label, text, found);
             return found.empty();
           });
  std::printf("vcode_difffuzz: %llu programs (from seed %llu), %llu runs, %llu skipped by known differences, "
              "%llu disagreeing, %.0f s\n",
              static_cast<unsigned long long>(loop.programs()), static_cast<unsigned long long>(options_.loop.seed),
              static_cast<unsigned long long>(scratch_.runs()), static_cast<unsigned long long>(skipped_runs_),
              static_cast<unsigned long long>(loop.disagreeing()), loop.elapsed_seconds());
  return loop.disagreeing() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Fuzzer fuzzer(parse_options(argc, argv));
    return fuzzer.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vcode_difffuzz: %s\n", e.what());
    return 2;
  }
}
