// corpus_runner: runs every NAME.vcode (and FCODE NAME.fcode) of a directory through vinterp and
// compares stdout, stderr and the exit status with NAME.expected, NAME.stderr (or
// NAME.stderr_contains) and NAME.exitcode; a NAME.vcode and a NAME.fcode share these files.
//
//   corpus_runner --vinterp PATH --dir DIR [--threads N] [--only NAME...] [--exclude NAME...]
//                 [--timeout SECONDS] [--float-tolerance T] [--extra-arg ARG]... [--suite KIND]
//                 [--verbose]
//
// Per program: `vinterp [--threads N] [ARG...] DIR/NAME.vcode` (or .fcode), run in a fresh temporary working
// directory (the programs name their files by absolute /tmp paths), stdin from NAME.in or
// /dev/null. With --optimizer, each program is first run through `PATH [ARG...] FILE -o
// NAME.fcode` (fcode-opt) in that directory and vinterp runs the result instead; the
// expectations are the same. Files beside NAME.vcode:
//   NAME.expected         stdout (absent: empty)
//   NAME.stderr           stderr, exact (absent: empty)
//   NAME.stderr_contains  instead of NAME.stderr: each non-empty line must occur in stderr
//   NAME.exitcode         exit status (absent: 0)
//   NAME.in               stdin
// Comparison (compare.hpp): exact bytes with --threads 1; otherwise float tokens may differ by a
// relative 1e-9 (or --float-tolerance); `nan` equals `-nan` always. Rules keyed by directory and
// program (see ../shared/README.md, "File conventions"):
//   * neslgpu-bench (and its reduced/): the last stdout line of every program but muladddbg is the
//     timed region's seconds, `( <float> )`; any float is accepted there.
//   * regress: in other_test__timer, whole__testall and whole__nesltest_dist the stderr line
//     `timer` may read `timer........failed` (NESL's check `time > 0` fails when the timer reads 0).
//   * an expected exit status of 136 (the classic died of SIGFPE on an integer division by zero)
//     requires exit status 1 and `division by zero` on stderr instead; stdout is compared as usual.
// --suite overrides the directory-name classification (neslgpu-bench, regress, or anything else).
// Output: one line per failing program, then `N passed, N failed[, N skipped]` (skipped = matched
// by --exclude). Exit status 0 iff nothing failed and something ran (a DIR without programs, or
// with all of them excluded, fails); 77 when DIR does not exist; 2 on usage errors (an unknown
// option among them).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "compare.hpp"
#include "process.hpp"

namespace fs = std::filesystem;

namespace {

constexpr int exit_skipped = 77;
constexpr int exit_usage = 2;
constexpr int sigfpe_status = 136;  // 128 + SIGFPE, as a shell shows the classic's death

struct Options {
  std::string vinterp;
  std::string dir;
  std::optional<int> threads;
  std::vector<std::string> only;
  std::vector<std::string> exclude;
  double timeout_seconds = 120.0;
  std::optional<double> float_tolerance;
  std::vector<std::string> extra_args;
  std::vector<std::string> launcher;  // words before vinterp (mpirun -np 3)
  std::optional<std::string> suite;
  std::string optimizer;                    // fcode-opt, or empty
  std::vector<std::string> optimizer_args;
  bool verbose = false;
};

const char* const usage =
    "usage: corpus_runner --vinterp PATH --dir DIR [--threads N] [--only NAME...] [--exclude NAME...]\n"
    "                     [--timeout SECONDS] [--float-tolerance T] [--extra-arg ARG]... [--suite KIND]\n"
    "                     [--optimizer PATH [--optimizer-arg ARG]...] [--launcher WORD]... [--verbose]\n"
    "NAME may be a shell pattern (bh.*); --only/--exclude take every following word up to the next\n"
    "option, and commas separate names too.\n";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "corpus_runner: %s\n%s", message.c_str(), usage);
  std::exit(exit_usage);
}

void add_names(std::vector<std::string>& into, const std::string& words) {
  std::stringstream in(words);
  std::string name;
  while (std::getline(in, name, ','))
    if (!name.empty()) into.push_back(name);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::optional<std::string> inline_value;
    if (arg.starts_with("--")) {
      if (auto eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) usage_error("missing value for " + arg);
      return argv[++i];
    };
    auto number = [&](const std::string& text) -> double {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') usage_error("not a number for " + arg + ": " + text);
      return v;
    };
    auto names = [&](std::vector<std::string>& into) {
      if (inline_value) {
        add_names(into, *inline_value);
        return;
      }
      bool any = false;
      while (i + 1 < argc && !std::string(argv[i + 1]).starts_with("--")) {
        add_names(into, argv[++i]);
        any = true;
      }
      if (!any) usage_error("missing names for " + arg);
    };
    if (arg == "--vinterp") options.vinterp = value();
    else if (arg == "--dir") options.dir = value();
    else if (arg == "--threads") {
      double t = number(value());
      if (t < 0 || t != int(t)) usage_error("--threads needs a non-negative integer");
      options.threads = int(t);
    } else if (arg == "--only") names(options.only);
    else if (arg == "--exclude") names(options.exclude);
    else if (arg == "--timeout") options.timeout_seconds = number(value());
    else if (arg == "--float-tolerance") options.float_tolerance = number(value());
    else if (arg == "--extra-arg") options.extra_args.push_back(value());
    else if (arg == "--launcher") options.launcher.push_back(value());
    else if (arg == "--suite") options.suite = value();
    else if (arg == "--optimizer") options.optimizer = value();
    else if (arg == "--optimizer-arg") options.optimizer_args.push_back(value());
    else if (arg == "--verbose" || arg == "-v") options.verbose = true;
    else if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else usage_error("unknown argument " + arg);
  }
  if (options.vinterp.empty()) usage_error("--vinterp is required");
  if (options.dir.empty()) usage_error("--dir is required");
  if (options.timeout_seconds <= 0) usage_error("--timeout must be positive");
  return options;
}

bool matches_any(const std::string& name, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), name.c_str(), 0) == 0; });
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string trim(std::string s) {
  auto blank = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && blank(s.back())) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && blank(s[start])) ++start;
  return s.substr(start);
}

// What a program is expected to do.
struct Expectation {
  std::string out;
  std::optional<std::string> err;            // exact stderr, unless stderr_contains is used
  std::vector<std::string> err_contains;     // lines that must occur in stderr
  int exit_status = 0;
  std::optional<fs::path> stdin_file;
};

Expectation load_expectation(const fs::path& dir, const std::string& name, std::string& problem) {
  Expectation e;
  auto file = [&](const char* ext) { return dir / (name + ext); };
  e.out = read_file(file(".expected")).value_or("");
  if (auto contains = read_file(file(".stderr_contains"))) {
    std::stringstream in(*contains);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) e.err_contains.push_back(line);
  } else {
    e.err = read_file(file(".stderr")).value_or("");
  }
  if (auto code = read_file(file(".exitcode"))) {
    std::string text = trim(*code);
    char* end = nullptr;
    long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') problem = "unreadable " + name + ".exitcode: \"" + text + "\"";
    e.exit_status = int(v);
  }
  if (fs::exists(file(".in"))) e.stdin_file = fs::absolute(file(".in"));
  return e;
}

// A line as it can be printed on one terminal line: control and non-ASCII bytes escaped.
std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') out += char(c);
    else if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// Both lines cut to a window around their first differing byte, so that a difference deep in a
// long vector shows.
std::pair<std::string, std::string> excerpts(const std::string& expected, const std::string& got) {
  constexpr std::size_t width = 160, before = 50;
  std::size_t first = 0;
  while (first < expected.size() && first < got.size() && expected[first] == got[first]) ++first;
  std::size_t from = (expected.size() > width || got.size() > width) && first > before ? first - before : 0;
  auto cut = [&](const std::string& s) {
    std::string piece = from < s.size() ? s.substr(from, width) : std::string();
    std::string shown = (from > 0 ? "..." : "") + printable(piece);
    if (from + width < s.size()) shown += "...";
    return shown;
  };
  return {cut(expected), cut(got)};
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return printable(line);
}

std::string describe(const char* stream, const corpus::Difference& d) {
  auto [e, g] = excerpts(d.expected, d.got);
  return std::string(stream) + " line " + std::to_string(d.line) + ": expected \"" + e + "\" got \"" + g + "\"";
}

std::string describe_status(const corpus::ProcessResult& r) {
  if (r.exited) return "exit status " + std::to_string(r.exit_code);
  return "killed by signal " + std::to_string(r.signal) + " (status " + std::to_string(corpus::shell_status(r)) + ")";
}

// The first reason the run does not match, or nothing.
std::optional<std::string> check(const Expectation& e, const corpus::ProcessResult& r, const corpus::CompareRules& rules,
                                 double timeout_seconds) {
  if (!r.launch_error.empty()) return "could not run vinterp: " + r.launch_error;
  if (r.timed_out) return "timed out after " + std::to_string(int(timeout_seconds)) + " s";
  const std::string err_hint = r.err.empty() ? "" : " (stderr: " + first_line(r.err) + ")";
  const bool sigfpe_case = e.exit_status == sigfpe_status;
  if (sigfpe_case) {
    if (!r.exited || r.exit_code != 1 || r.err.find("division by zero") == std::string::npos)
      return "expected exit status 1 with \"division by zero\" on stderr (the classic died of SIGFPE), got " +
             describe_status(r) + err_hint;
  } else if (corpus::shell_status(r) != e.exit_status) {
    return describe_status(r) + ", expected " + std::to_string(e.exit_status) + err_hint;
  }
  if (auto d = corpus::compare_output(e.out, r.out, rules); !d.equal) return describe("stdout", d);
  for (const auto& needle : e.err_contains)
    if (r.err.find(needle) == std::string::npos)
      return "stderr lacks \"" + printable(needle) + "\"" + (r.err.empty() ? " (stderr is empty)" : err_hint);
  if (e.err && !sigfpe_case)
    if (auto d = corpus::compare_output(*e.err, r.err, rules); !d.equal) return describe("stderr", d);
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  const fs::path dir = fs::absolute(options.dir).lexically_normal();
  if (!fs::is_directory(dir)) {
    std::printf("skipped: %s not found\n", options.dir.c_str());
    return exit_skipped;
  }
  const fs::path vinterp = fs::absolute(options.vinterp);
  if (access(vinterp.c_str(), X_OK) != 0) {
    std::printf("corpus_runner: %s is not an executable file\n", vinterp.c_str());
    return 1;
  }
  const std::string suite = options.suite.value_or(corpus::suite_of_directory(dir.string()));
  const double tolerance = options.float_tolerance.value_or(options.threads == 1 ? 0.0 : 1e-9);

  struct Program {
    std::string name, file;  // NAME, and NAME.vcode or NAME.fcode
    bool operator<(const Program& other) const { return file < other.file; }
  };
  std::vector<Program> programs;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() &&
        (entry.path().extension() == ".vcode" || entry.path().extension() == ".fcode"))
      programs.push_back({entry.path().stem().string(), entry.path().filename().string()});
  std::sort(programs.begin(), programs.end());
  if (programs.empty()) {
    std::printf("FAIL: no programs (NAME.vcode or NAME.fcode) in %s\n", dir.c_str());
    return 1;
  }

  std::string scratch_template = (fs::temp_directory_path() / "corpus_runner.XXXXXX").string();
  if (!mkdtemp(scratch_template.data())) {
    std::printf("corpus_runner: cannot create a temporary directory under %s\n", fs::temp_directory_path().c_str());
    return 1;
  }
  const fs::path scratch = scratch_template;

  const std::string threads_text =
      options.threads ? "--threads " + std::to_string(*options.threads) : std::string("default threads");
  std::printf("corpus_runner: %s (suite %s, %s, float tolerance %g)\n", dir.c_str(), suite.c_str(),
              threads_text.c_str(), tolerance);
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& pattern : options.only)
    if (std::none_of(programs.begin(), programs.end(),
                     [&](const Program& p) { return fnmatch(pattern.c_str(), p.name.c_str(), 0) == 0; })) {
      std::printf("FAIL %s: no such program in %s\n", pattern.c_str(), options.dir.c_str());
      ++failed;
    }
  std::fflush(stdout);
  for (const auto& [name, file] : programs) {
    if (!options.only.empty() && !matches_any(name, options.only)) continue;
    if (matches_any(name, options.exclude)) {
      ++skipped;
      continue;
    }
    std::string problem;
    const Expectation expectation = load_expectation(dir, name, problem);
    if (!problem.empty()) {
      std::printf("FAIL %s: %s\n", file.c_str(), problem.c_str());
      ++failed;
      continue;
    }
    std::vector<std::string> command = options.launcher;
    command.push_back(vinterp.string());
    if (options.threads) {
      command.push_back("--threads");
      command.push_back(std::to_string(*options.threads));
    }
    command.insert(command.end(), options.extra_args.begin(), options.extra_args.end());

    const fs::path work = scratch / file;
    std::error_code ignored;
    fs::create_directories(work, ignored);
    if (options.optimizer.empty()) {
      command.push_back((dir / file).string());
    } else {
      const fs::path fcode = work / (name + ".fcode");
      std::vector<std::string> optimize{fs::absolute(options.optimizer).string()};
      optimize.insert(optimize.end(), options.optimizer_args.begin(), options.optimizer_args.end());
      optimize.insert(optimize.end(), {(dir / file).string(), "-o", fcode.string()});
      const auto optimized = corpus::run_process(optimize, work.string(), "/dev/null", options.timeout_seconds);
      if (!optimized.exited || optimized.exit_code != 0) {
        std::printf("FAIL %s: the optimizer failed (%s)%s\n", file.c_str(), describe_status(optimized).c_str(),
                    optimized.err.empty() ? "" : (": " + first_line(optimized.err)).c_str());
        ++failed;
        fs::remove_all(work, ignored);
        std::fflush(stdout);
        continue;
      }
      command.push_back(fcode.string());
    }
    const auto result = corpus::run_process(command, work.string(),
                                            expectation.stdin_file ? expectation.stdin_file->string() : "/dev/null",
                                            options.timeout_seconds);
    fs::remove_all(work, ignored);

    const auto rules = corpus::rules_for(suite, name, tolerance);
    if (auto why = check(expectation, result, rules, options.timeout_seconds)) {
      std::printf("FAIL %s: %s\n", file.c_str(), why->c_str());
      ++failed;
      if (options.verbose && !result.err.empty()) {
        std::string err = result.err.substr(0, 4000);
        std::printf("  stderr:\n%s%s", err.c_str(), err.ends_with('\n') ? "" : "\n");
      }
    } else {
      ++passed;
      if (options.verbose) std::printf("ok   %s (%.2f s)\n", file.c_str(), result.seconds);
    }
    std::fflush(stdout);
  }
  std::error_code ignored;
  fs::remove_all(scratch, ignored);

  std::printf("%d passed, %d failed", passed, failed);
  if (skipped > 0) std::printf(", %d skipped", skipped);
  std::printf("\n");
  if (passed + failed == 0) {
    std::printf("FAIL: no program of %s was run (all excluded)\n", dir.c_str());
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
