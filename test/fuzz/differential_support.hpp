// What the two differential fuzzers (vcode_difffuzz, nesl_difffuzz) share: their common options
// and the reading of a command line, the scratch folder their runs start in, the comparison of a
// run's output with the reference's, the saving of a disagreeing program, and the loop over
// seeds or given program files.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compare.hpp"
#include "process.hpp"

namespace fuzz {

// One disagreement: which run, and how it differs from what was expected.
struct Disagreement {
  std::string run;
  std::string what;
};

// The options both fuzzers take: programs are seeds N, N+1, ... until K programs or S seconds
// (default: 100 programs), or the given files instead.
struct LoopOptions {
  std::string known;  // the list of known differences or bugs
  std::string out;    // where disagreeing programs are saved
  std::uint64_t seed = 1;
  std::optional<std::uint64_t> count;
  std::optional<double> seconds;
  bool minimize = false, verbose = false;
  std::vector<std::string> programs;
};

// A command line read word by word; a problem prints `name: problem` and the usage text on
// stderr and exits with status 2.
class CommandLine {
 public:
  CommandLine(int argc, char** argv, std::string name, std::string usage_text);
  bool next();                          // moves to the next word; false at the end
  const std::string& word() const { return word_; }
  std::string value();                  // the word after the current option
  double number();                      // value() as a non-negative number
  // The loop's options; false when the current word is none of them.
  bool read_loop_option(LoopOptions& options);
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  int argc_;
  char** argv_;
  int index_ = 0;
  std::string word_, name_, usage_text_;
};

// Where every run starts: a fresh temporary folder, removed with this object. Each run is
// counted and killed (its process group) after `timeout_seconds`.
class ScratchRuns {
 public:
  ScratchRuns(const std::string& prefix, double timeout_seconds);  // throws when none can be made
  ~ScratchRuns();
  ScratchRuns(const ScratchRuns&) = delete;
  ScratchRuns& operator=(const ScratchRuns&) = delete;

  const std::filesystem::path& path() const { return path_; }
  corpus::ProcessResult run(const std::vector<std::string>& command);
  std::uint64_t runs() const { return runs_; }

 private:
  std::filesystem::path path_;
  double timeout_seconds_;
  std::uint64_t runs_ = 0;
};

std::string read_text(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& text);
// The first non-empty line, cut at 200 characters.
std::string first_line(const std::string& text);
// How a run that did not end well ended: could not start, timed out, or its status and message.
std::string describe_status(const corpus::ProcessResult& result);

// The first line where stdout, then stderr, differs from the expected ones under `rules`:
// `stdout line N: EXPECTED_NAME "...", got "..."`; nothing when both agree.
std::optional<std::string> first_difference(const std::string& expected_out, const std::string& expected_err,
                                            const corpus::ProcessResult& got, const corpus::CompareRules& rules,
                                            const std::string& expected_name);

// Saves a disagreeing program as OUT/LABEL.EXTENSION and prints a FAIL line per disagreement and
// where the program is; returns the saved file's path.
std::filesystem::path save_failure(const std::string& out, const std::string& label, const std::string& extension,
                                   const std::string& text, const std::vector<Disagreement>& found);

// Runs `check` over every program: the files of `options.programs`, else `generate(seed)` from
// `options.seed` until the count or the seconds are reached. `check(label, text)` returns whether
// every run agreed; a progress line is printed every `progress_every` generated programs.
class ProgramLoop {
 public:
  using Generate = std::function<std::string(std::uint64_t seed)>;
  using Check = std::function<bool(const std::string& label, const std::string& text)>;

  ProgramLoop(const LoopOptions& options, std::uint64_t progress_every);
  void run(const Generate& generate, const Check& check);
  std::uint64_t programs() const { return programs_; }  // counted before each check
  std::uint64_t disagreeing() const { return disagreeing_; }
  double elapsed_seconds() const;

 private:
  void check_one(const Check& check, const std::string& label, const std::string& text);

  const LoopOptions& options_;
  std::uint64_t progress_every_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::uint64_t programs_ = 0, disagreeing_ = 0;
};

}  // namespace fuzz
