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

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compare.hpp"
#include "known_differences.hpp"
#include "minimize.hpp"
#include "process.hpp"
#include "program_generator.hpp"

namespace fs = std::filesystem;

namespace {

constexpr double process_timeout_seconds = 120.0;

struct Options {
  std::string vinterp, optimizer, classic, known = NESL_FUZZ_KNOWN_DIFFERENCES, out = "fuzz-failures";
  std::uint64_t seed = 1;
  std::optional<std::uint64_t> count;
  std::optional<double> seconds;
  bool minimize = false, verbose = false;
  std::vector<std::string> programs;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "vcode_difffuzz: %s\n"
               "usage: vcode_difffuzz --vinterp PATH [--optimizer PATH] [--classic PATH] [--known FILE]\n"
               "                      [--seed N] [--count K] [--seconds S] [--minimize] [--out DIR]\n"
               "                      [--verbose] [--program FILE]...\n",
               problem.c_str());
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value for " + arg);
      return argv[++i];
    };
    auto number = [&](const std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || v < 0) usage("not a number for " + arg + ": " + text);
      return v;
    };
    if (arg == "--vinterp") o.vinterp = value();
    else if (arg == "--optimizer") o.optimizer = value();
    else if (arg == "--classic") o.classic = value();
    else if (arg == "--known") o.known = value();
    else if (arg == "--out") o.out = value();
    else if (arg == "--seed") o.seed = static_cast<std::uint64_t>(number(value()));
    else if (arg == "--count") o.count = static_cast<std::uint64_t>(number(value()));
    else if (arg == "--seconds") o.seconds = number(value());
    else if (arg == "--minimize") o.minimize = true;
    else if (arg == "--verbose") o.verbose = true;
    else if (arg == "--program") o.programs.push_back(value());
    else usage("unknown argument " + arg);
  }
  if (o.vinterp.empty()) usage("--vinterp is required");
  if (!o.count && !o.seconds) o.count = 100;
  return o;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

struct Variant {
  std::string name;
  std::vector<std::string> args;  // after the vinterp path
  bool fcode = false;             // runs fcode-opt's output
};

// One disagreement: which run, and how it differs from the reference.
struct Disagreement {
  std::string variant;
  std::string what;
};

class Fuzzer {
 public:
  explicit Fuzzer(Options options);
  ~Fuzzer() {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
  }
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
  fs::path scratch_;
  std::uint64_t programs_ = 0, failed_programs_ = 0, skipped_runs_ = 0, runs_ = 0;
};

Fuzzer::Fuzzer(Options options) : options_(std::move(options)) {
  known_ = fuzz::load_known_differences(options_.known);
  std::string scratch = (fs::temp_directory_path() / "vcode_difffuzz.XXXXXX").string();
  if (!mkdtemp(scratch.data())) usage("cannot create a temporary directory");
  scratch_ = scratch;
  // The backends this vinterp has (`--version` lists them).
  const auto version = corpus::run_process({fs::absolute(options_.vinterp).string(), "--version"}, scratch_.string(),
                                           "/dev/null", process_timeout_seconds);
  if (!version.exited || version.exit_code != 0) usage("cannot run " + options_.vinterp);
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
  ++runs_;
  return corpus::run_process(command, scratch_.string(), "/dev/null", process_timeout_seconds);
}

corpus::ProcessResult Fuzzer::run_classic(const fs::path& vcode) {
  ++runs_;
  // -m: the arena in 8-byte words; generated programs stay far below 1.6 GB (untouched pages cost
  // nothing).
  return corpus::run_process({options_.classic, "-m", "200000000", vcode.string()}, scratch_.string(), "/dev/null",
                             process_timeout_seconds);
}

std::optional<std::string> Fuzzer::optimize(const fs::path& vcode, const fs::path& fcode) {
  const auto r = corpus::run_process({fs::absolute(options_.optimizer).string(), vcode.string(), "-o", fcode.string()},
                                     scratch_.string(), "/dev/null", process_timeout_seconds);
  if (r.exited && r.exit_code == 0) return std::nullopt;
  return "fcode-opt failed (status " + std::to_string(corpus::shell_status(r)) + "): " + first_line(r.err);
}

std::string describe_status(const corpus::ProcessResult& r) {
  if (!r.launch_error.empty()) return "could not start: " + r.launch_error;
  if (r.timed_out) return "timed out";
  return "status " + std::to_string(corpus::shell_status(r)) + (r.err.empty() ? "" : " (" + first_line(r.err) + ")");
}

// Every run of the program against the reference; with `only_variant`, that one run (minimizing).
std::vector<Disagreement> Fuzzer::check(const std::string& text, const std::string& only_variant) {
  const fs::path vcode = scratch_ / "program.vcode", fcode = scratch_ / "program.fcode";
  write_text(vcode, text);
  std::vector<Disagreement> found;
  const Variant threads1 = variants_.front();
  const corpus::ProcessResult reference =
      options_.classic.empty() ? run_vinterp(threads1, vcode, fcode) : run_classic(vcode);
  if (!reference.exited || reference.exit_code != 0) {
    found.push_back({reference_name(), "the reference failed on a generated program: " + describe_status(reference)});
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
      found.push_back({v.name, describe_status(r)});
      continue;
    }
    corpus::CompareRules compare;
    compare.float_tolerance = rules.float_tolerance;
    compare.nan_sign_free = rules.nan_sign_free;
    for (const auto& [stream, expected, got] : {std::tuple{"stdout", &reference.out, &r.out},
                                                std::tuple{"stderr", &reference.err, &r.err}}) {
      const corpus::Difference d = corpus::compare_output(*expected, *got, compare);
      if (d.equal) continue;
      std::string e = d.expected.substr(0, 160), g = d.got.substr(0, 160);
      found.push_back({v.name, std::string(stream) + " line " + std::to_string(d.line) + ": " + reference_name() +
                                   " \"" + e + "\", got \"" + g + "\""});
      break;
    }
  }
  return found;
}

void Fuzzer::report(const std::string& label, const std::string& text, const std::vector<Disagreement>& found) {
  ++failed_programs_;
  std::error_code ignored;
  fs::create_directories(options_.out, ignored);
  const fs::path saved = fs::path(options_.out) / (label + ".vcode");
  write_text(saved, text);
  for (const auto& d : found) std::printf("FAIL %s: %s: %s\n", label.c_str(), d.variant.c_str(), d.what.c_str());
  std::printf("  program: %s\n", saved.c_str());
  if (options_.minimize) {
    const Disagreement first = found.front();
    auto still_fails = [&](const std::string& candidate) {
      // Still valid for us (our checks catch what the classic does not), still the same failure.
      write_text(scratch_ / "program.vcode", candidate);
      const auto ours = run_vinterp(variants_.front(), scratch_ / "program.vcode", scratch_ / "program.fcode");
      if (!ours.exited || ours.exit_code != 0) return false;
      const std::string only = first.variant == reference_name() || first.variant == "fcode-opt" ? "" : first.variant;
      for (const auto& d : check(candidate, only))
        if (d.variant == first.variant) return true;
      return false;
    };
    const std::string smaller = fuzz::minimize_lines(text, still_fails);
    const fs::path min_path = fs::path(options_.out) / (label + ".min.vcode");
    write_text(min_path, smaller);
    const auto again = check(smaller);
    std::printf("  minimized: %s (%zu bytes)%s\n", min_path.c_str(), smaller.size(),
                again.empty() ? "" : (": " + again.front().variant + ": " + again.front().what).c_str());
  }
  std::fflush(stdout);
}

int Fuzzer::run() {
  std::string names;
  for (const auto& v : variants_) names += " " + v.name;
  std::printf("vcode_difffuzz: reference %s; variants%s\n", reference_name().c_str(), names.c_str());
  std::fflush(stdout);
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  if (!options_.programs.empty()) {
    for (const auto& path : options_.programs) {
      const std::string text = read_text(path);
      ++programs_;
      if (auto found = check(text); !found.empty()) report(fs::path(path).stem().string(), text, found);
    }
  } else {
    for (std::uint64_t seed = options_.seed;; ++seed) {
      if (options_.count && programs_ >= *options_.count) break;
      if (options_.seconds && elapsed() >= *options_.seconds) break;
      const fuzz::GeneratedProgram program = fuzz::generate_program(seed);
      ++programs_;
      const auto found = check(program.text);
      if (!found.empty()) report("seed_" + std::to_string(seed), program.text, found);
      else if (options_.verbose) std::printf("ok   seed %llu\n", static_cast<unsigned long long>(seed));
      if (programs_ % 500 == 0) {
        std::printf("... %llu programs, %llu disagreeing, %.0f s\n", static_cast<unsigned long long>(programs_),
                    static_cast<unsigned long long>(failed_programs_), elapsed());
        std::fflush(stdout);
      }
    }
  }
  std::printf("vcode_difffuzz: %llu programs (from seed %llu), %llu runs, %llu skipped by known differences, "
              "%llu disagreeing, %.0f s\n",
              static_cast<unsigned long long>(programs_), static_cast<unsigned long long>(options_.seed),
              static_cast<unsigned long long>(runs_), static_cast<unsigned long long>(skipped_runs_),
              static_cast<unsigned long long>(failed_programs_), elapsed());
  return failed_programs_ == 0 ? 0 : 1;
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
