#include "differential_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <tuple>

namespace fs = std::filesystem;

namespace fuzz {

CommandLine::CommandLine(int argc, char** argv, std::string name, std::string usage_text)
    : argc_(argc), argv_(argv), name_(std::move(name)), usage_text_(std::move(usage_text)) {}

bool CommandLine::next() {
  if (++index_ >= argc_) return false;
  word_ = argv_[index_];
  return true;
}

std::string CommandLine::value() {
  if (index_ + 1 >= argc_) fail("missing value for " + word_);
  return argv_[++index_];
}

double CommandLine::number() {
  const std::string option = word_, text = value();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || v < 0) fail("not a number for " + option + ": " + text);
  return v;
}

bool CommandLine::read_loop_option(LoopOptions& options) {
  if (word_ == "--known") options.known = value();
  else if (word_ == "--out") options.out = value();
  else if (word_ == "--seed") options.seed = static_cast<std::uint64_t>(number());
  else if (word_ == "--count") options.count = static_cast<std::uint64_t>(number());
  else if (word_ == "--seconds") options.seconds = number();
  else if (word_ == "--minimize") options.minimize = true;
  else if (word_ == "--verbose") options.verbose = true;
  else if (word_ == "--program") options.programs.push_back(value());
  else return false;
  return true;
}

void CommandLine::fail(const std::string& problem) const {
  std::fprintf(stderr, "%s: %s\n%s", name_.c_str(), problem.c_str(), usage_text_.c_str());
  std::exit(2);
}

ScratchRuns::ScratchRuns(const std::string& prefix, double timeout_seconds) : timeout_seconds_(timeout_seconds) {
  std::string path = (fs::temp_directory_path() / (prefix + ".XXXXXX")).string();
  if (!mkdtemp(path.data())) throw std::runtime_error("cannot create a temporary directory");
  path_ = path;
}

ScratchRuns::~ScratchRuns() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

corpus::ProcessResult ScratchRuns::run(const std::vector<std::string>& command) {
  ++runs_;
  return corpus::run_process(command, path_.string(), "/dev/null", timeout_seconds_);
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
  const auto start = text.find_first_not_of('\n');
  if (start == std::string::npos) return "";
  std::string line = text.substr(start, text.find('\n', start) - start);
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

std::string describe_status(const corpus::ProcessResult& r) {
  if (!r.launch_error.empty()) return "could not start: " + r.launch_error;
  if (r.timed_out) return "timed out";
  return "status " + std::to_string(corpus::shell_status(r)) + (r.err.empty() ? "" : " (" + first_line(r.err) + ")");
}

std::optional<std::string> first_difference(const std::string& expected_out, const std::string& expected_err,
                                            const corpus::ProcessResult& got, const corpus::CompareRules& rules,
                                            const std::string& expected_name) {
  for (const auto& [stream, expected, found] :
       {std::tuple{"stdout", &expected_out, &got.out}, std::tuple{"stderr", &expected_err, &got.err}}) {
    const corpus::Difference d = corpus::compare_output(*expected, *found, rules);
    if (d.equal) continue;
    return std::string(stream) + " line " + std::to_string(d.line) + ": " + expected_name + " \"" +
           d.expected.substr(0, 160) + "\", got \"" + d.got.substr(0, 160) + "\"";
  }
  return std::nullopt;
}

fs::path save_failure(const std::string& out, const std::string& label, const std::string& extension,
                      const std::string& text, const std::vector<Disagreement>& found) {
  std::error_code ignored;
  fs::create_directories(out, ignored);
  const fs::path saved = fs::path(out) / (label + "." + extension);
  write_text(saved, text);
  for (const auto& d : found) std::printf("FAIL %s: %s: %s\n", label.c_str(), d.run.c_str(), d.what.c_str());
  std::printf("  program: %s\n", saved.c_str());
  return saved;
}

ProgramLoop::ProgramLoop(const LoopOptions& options, std::uint64_t progress_every)
    : options_(options), progress_every_(progress_every) {}

double ProgramLoop::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void ProgramLoop::check_one(const Check& check, const std::string& label, const std::string& text) {
  ++programs_;
  if (!check(label, text)) ++disagreeing_;
}

void ProgramLoop::run(const Generate& generate, const Check& check) {
  if (!options_.programs.empty()) {
    for (const auto& path : options_.programs) check_one(check, fs::path(path).stem().string(), read_text(path));
    return;
  }
  const std::uint64_t count = options_.count.value_or(options_.seconds ? UINT64_MAX : 100);
  for (std::uint64_t seed = options_.seed;; ++seed) {
    if (programs_ >= count) break;
    if (options_.seconds && elapsed_seconds() >= *options_.seconds) break;
    const std::uint64_t disagreeing_before = disagreeing_;
    check_one(check, "seed_" + std::to_string(seed), generate(seed));
    if (disagreeing_ == disagreeing_before && options_.verbose)
      std::printf("ok   seed %llu\n", static_cast<unsigned long long>(seed));
    if (programs_ % progress_every_ == 0) {
      std::printf("... %llu programs, %llu disagreeing, %.0f s\n", static_cast<unsigned long long>(programs_),
                  static_cast<unsigned long long>(disagreeing_), elapsed_seconds());
      std::fflush(stdout);
    }
  }
}

}  // namespace fuzz
