// Runs the nesl front end over a directory of programs and compares with expected files:
// reparse (print/reparse fixpoint), type (NAME.type), repl (NAME.repl's type lines),
// check (type-checks cleanly), errors (NAME.expected holds the exact diagnostic of --check, or
// of --vcode when the program type-checks) and run
// (compiled to VCODE and run by the --vinterp command: stdout, stderr and exit status must be
// NAME.expected, NAME.stderr and NAME.exitcode) and bench (the neslgpu benchmarks with a driver
// expression each, their results but the time compared with the classic's) and repl-run
// (`nesl FILE` run in-process must print NAME.repl's lines but the `<Nesl>` echoes).
// Prints a count per mode; exits 77 when the directory is absent, so CTest reports a skip, 1 when
// a program fails or none was checked, and 2 for a bad command line (an unknown option or mode).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime_notes.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/printer.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CommandResult {
  int exit_status = -1;
  std::string output;
};

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The classic wrapped long lines, leaving stray spaces and newlines (`[float] , [float]`), so
// types are compared with whitespace runs collapsed and no space before a comma.
std::string normalize(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      if (c == ',' && !out.empty() && out.back() == ' ') out.pop_back();
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What the classic REPL printed for one form, reduced to the line `nesl --check` prints:
// `NAME = fn : T` stays, `NAME = VALUE : T` becomes `NAME : T`; empty when no type was printed
// (the form failed at run time).
std::string expected_check_line(const std::vector<std::string>& block) {
  // What the program printed comes first; the REPL's own line is the last that starts with a
  // name and ` =` (or the name alone, when the REPL wrapped it: `it` / ` = ` / value).
  static const std::regex result_start("^[A-Za-z_][A-Za-z0-9_]*( =.*)?$");
  std::size_t start = 0;
  for (std::size_t i = 0; i < block.size(); ++i) {
    if (std::regex_match(block[i], result_start)) start = i;
  }
  std::string joined;
  for (std::size_t i = start; i < block.size(); ++i) joined += block[i] + "\n";
  std::string text = normalize(joined);
  std::size_t equals = text.find(" = ");
  std::size_t fn = text.find(" = fn : ");
  if (fn != std::string::npos && fn == equals) return text;
  std::size_t name_end = text.find_first_of(" =");
  std::size_t type_start = text.rfind(" : ");
  if (equals == std::string::npos || type_start == std::string::npos || type_start < equals) return "";
  return text.substr(0, name_end) + " : " + text.substr(type_start + 3);
}

std::vector<std::vector<std::string>> repl_blocks(const std::string& text) {
  std::vector<std::vector<std::string>> blocks;
  for (const std::string& line : split_lines(text)) {
    if (line.rfind("<Nesl>", 0) == 0) {
      blocks.emplace_back();
    } else if (!blocks.empty()) {
      blocks.back().push_back(line);
    }
  }
  return blocks;
}

struct Tally {
  int passed = 0;
  int failed = 0;
  int known_gaps = 0;
  std::vector<std::string> notes;
};

std::string reparse_failure(const fs::path& file) {
  try {
    nesl::Program first = nesl::parse_program(nesl::read_source_file(file.string()));
    std::string printed = nesl::print_program(first);
    auto again = std::make_shared<nesl::SourceFile>(file.string() + " (printed)", printed);
    std::string reprinted = nesl::print_program(nesl::parse_program(again));
    if (reprinted != printed) return "print/reparse/print differs:\n" + printed + "---\n" + reprinted;
    if (first.forms.empty()) return "no forms parsed";
    return "";
  } catch (const nesl::CompileError& error) {
    return nesl::format_diagnostic(error);
  }
}

// Compiles one program to VCODE and runs it; empty when everything the run printed matches.
std::string run_failure(const fs::path& program, const std::string& nesl_program,
                        const std::string& vinterp_command, const fs::path& scratch) {
  std::string name = program.stem().string();
  fs::path dir = program.parent_path();
  fs::path argcheck_file = dir / (name + ".argcheck");
  std::string arg_check = "on";
  if (fs::exists(argcheck_file)) arg_check = normalize(read_file(argcheck_file));
  fs::path vcode = scratch / (name + ".vcode");
  fs::path out = scratch / (name + ".out");
  fs::path err = scratch / (name + ".err");
  CommandResult compiled = run_command(shell_quote(nesl_program) + " --vcode --arg-check " + arg_check + " " +
                                       shell_quote(program.string()) + " -o " + shell_quote(vcode.string()) +
                                       " 2>&1");
  if (compiled.exit_status != 0) return "nesl --vcode failed:\n" + compiled.output;
  // The shell reports a run killed by a signal as 128 + the signal, as the expected files do.
  // The subshell's own stderr is dropped: that is where the shell reports the signal.
  CommandResult ran = run_command("( timeout 120 " + vinterp_command + " " + shell_quote(vcode.string()) + " > " +
                                  shell_quote(out.string()) + " 2> " + shell_quote(err.string()) +
                                  " < /dev/null ) 2> /dev/null; echo $?");
  int status = std::atoi(ran.output.c_str());
  std::string failure;
  fs::path expected_status_file = dir / (name + ".exitcode");
  int expected_status = fs::exists(expected_status_file) ? std::atoi(read_file(expected_status_file).c_str()) : 0;
  if (status != expected_status) {
    failure += "  exit status: expected " + std::to_string(expected_status) + ", found " + std::to_string(status) + "\n";
  }
  if (read_file(out) != read_file(dir / (name + ".expected"))) failure += "  stdout differs from NAME.expected\n";
  fs::path expected_err = dir / (name + ".stderr");
  std::string expected_stderr = fs::exists(expected_err) ? read_file(expected_err) : "";
  std::string found_stderr = read_file(err);
  if (found_stderr != expected_stderr) failure += "  stderr differs: found " + found_stderr.substr(0, 300) + "\n";
  return failure;
}

// A neslgpu benchmark with a driver expression appended, compiled and run: every line it
// prints but the last (the time) must be the reference's.
std::string bench_failure(const fs::path& source, const std::string& expression, const fs::path& reference,
                          const std::string& nesl_program, const std::string& vinterp_command,
                          const fs::path& scratch) {
  std::string name = source.stem().string();
  fs::path program = scratch / (name + "_driven.nesl");
  {
    std::ofstream out(program, std::ios::binary);
    out << read_file(source) << "\n" << expression << "\n";
  }
  fs::path vcode = scratch / (name + ".vcode");
  CommandResult compiled = run_command(shell_quote(nesl_program) + " --vcode " + shell_quote(program.string()) +
                                       " -o " + shell_quote(vcode.string()) + " 2>&1");
  if (compiled.exit_status != 0) return "nesl --vcode failed:\n" + compiled.output;
  CommandResult ran = run_command("timeout 120 " + vinterp_command + " " + shell_quote(vcode.string()) +
                                  " 2>&1 < /dev/null");
  std::vector<std::string> found = split_lines(ran.output);
  std::vector<std::string> expected = split_lines(read_file(reference));
  if (!found.empty()) found.pop_back();
  if (!expected.empty()) expected.pop_back();
  if (ran.exit_status != 0 || found != expected) {
    return "expected, but the time:\n" + read_file(reference) + "found:\n" + ran.output;
  }
  return "";
}

}  // namespace

using nesl_test::without_runtime_notes;

// Runs `nesl FILE` (in-process, one thread, arg_check as NAME.argcheck says) and compares what
// it prints, stdout and stderr together, with the lines of NAME.repl that follow the echoed
// forms (our notes locating a runtime error left out); the exit status must be 1 exactly when
// the classic reported an error.
std::string repl_run_failure(const fs::path& program, const std::string& nesl_program) {
  std::string name = program.stem().string();
  fs::path dir = program.parent_path();
  std::string arg_check = "on";
  if (fs::exists(dir / (name + ".argcheck"))) arg_check = normalize(read_file(dir / (name + ".argcheck")));
  std::string expected;
  for (const std::string& line : split_lines(read_file(dir / (name + ".repl"))))
    if (line.rfind("<Nesl>", 0) != 0) expected += line + "\n";
  CommandResult ran = run_command("timeout 120 " + shell_quote(nesl_program) + " --threads 1 --arg-check " +
                                  arg_check + " " + shell_quote(program.string()) + " 2>&1 </dev/null");
  ran.output = without_runtime_notes(ran.output);
  std::string failure;
  if (ran.output != expected) {
    std::vector<std::string> want = split_lines(expected), got = split_lines(ran.output);
    std::size_t i = 0;
    while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
    failure = "output differs at line " + std::to_string(i + 1) + ":\n  expected: " +
              (i < want.size() ? want[i] : "(end)") + "\n  found:    " + (i < got.size() ? got[i] : "(end)") + "\n";
  }
  const bool classic_error = expected.find("Error at top level.") != std::string::npos;
  if (ran.exit_status != (classic_error ? 1 : 0))
    failure += "exit status " + std::to_string(ran.exit_status) + ", expected " + (classic_error ? "1" : "0") + "\n";
  return failure;
}

namespace {

const std::set<std::string> modes = {"reparse", "type", "repl", "repl-run", "check", "errors",
                                     "runtime-errors", "run", "bench"};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "nesl_program_check: " << problem << "\n"
            << "usage: nesl_program_check --mode reparse|type|repl|repl-run|check|errors|runtime-errors|run|"
               "bench --dir DIR [--nesl PROGRAM] [--known-gaps FILE] [--vinterp COMMAND] [--drivers FILE]\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode, nesl_program, directory, known_gaps_file, vinterp_command, drivers_file;
  for (int i = 1; i < argc; i += 2) {
    const std::string option = argv[i];
    if (i + 1 >= argc) usage("missing value for " + option);
    if (option == "--mode") mode = argv[i + 1];
    else if (option == "--nesl") nesl_program = argv[i + 1];
    else if (option == "--dir") directory = argv[i + 1];
    else if (option == "--known-gaps") known_gaps_file = argv[i + 1];
    else if (option == "--vinterp") vinterp_command = argv[i + 1];
    else if (option == "--drivers") drivers_file = argv[i + 1];
    else usage("unknown option " + option);
  }
  if (mode.empty() || directory.empty()) usage("--mode and --dir are required");
  if (!modes.count(mode)) usage("unknown mode " + mode);
  // The errors mode runs the program from each test's folder, so a relative path would break.
  if (!nesl_program.empty()) nesl_program = fs::absolute(nesl_program).string();
  if (!fs::is_directory(directory)) {
    std::cout << "SKIPPED: " << directory << " is absent (set NESL_SHARED_DIR)\n";
    return 77;
  }
  // Programs the front end is known to get wrong, one name a line: each is reported, and one
  // that starts passing fails the run so that the list shrinks with the gaps.
  std::set<std::string> known_gaps;
  if (!known_gaps_file.empty()) {
    for (const std::string& line : split_lines(read_file(known_gaps_file))) {
      if (!line.empty() && line[0] != '#') known_gaps.insert(line);
    }
  }
  // The run mode needs the interpreter; the classic one is outside this repository.
  std::string vinterp_path = vinterp_command.substr(0, vinterp_command.find(' '));
  if ((mode == "run" || mode == "bench") && !fs::exists(vinterp_path)) {
    std::cout << "SKIPPED: the interpreter " << vinterp_path << " is absent\n";
    return 77;
  }
  fs::path scratch = fs::temp_directory_path() / ("nesl_program_check_" + std::to_string(getpid()));
  if (mode == "run" || mode == "bench") fs::create_directories(scratch);
  // bench: each line of the drivers file is `NAME | EXPRESSION | REFERENCE`, the benchmark
  // nesl/NAME.nesl and its expected output REFERENCE under the directory.
  if (mode == "bench") {
    Tally tally;
    int count = 0;
    for (const std::string& line : split_lines(read_file(drivers_file))) {
      if (line.empty() || line[0] == '#') continue;
      std::size_t bar1 = line.find('|'), bar2 = line.rfind('|');
      if (bar1 == std::string::npos || bar2 == bar1) continue;
      auto trim = [](std::string text) {
        text.erase(0, text.find_first_not_of(' '));
        text.erase(text.find_last_not_of(' ') + 1);
        return text;
      };
      std::string name = trim(line.substr(0, bar1));
      std::string expression = trim(line.substr(bar1 + 1, bar2 - bar1 - 1));
      std::string reference = trim(line.substr(bar2 + 1));
      ++count;
      std::string failure = bench_failure(fs::path(directory) / "nesl" / (name + ".nesl"), expression,
                                          fs::path(directory) / reference, nesl_program, vinterp_command, scratch);
      if (failure.empty()) {
        ++tally.passed;
      } else {
        ++tally.failed;
        tally.notes.push_back(name + ": FAILED\n" + failure);
      }
    }
    fs::remove_all(scratch);
    for (const std::string& note : tally.notes) std::cout << note << "\n";
    std::cout << "bench: " << tally.passed << " of " << count << " benchmarks match\n";
    if (count == 0) {
      std::cout << "FAILED: no benchmark was checked (no drivers in " << drivers_file << ")\n";
      return 1;
    }
    return tally.failed > 0 ? 1 : 0;
  }
  std::vector<fs::path> programs;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.path().extension() == ".nesl") programs.push_back(entry.path());
  }
  std::sort(programs.begin(), programs.end());
  if (programs.empty()) {
    std::cout << "FAILED: no .nesl programs in " << directory << "\n";
    return 1;
  }

  Tally tally;
  int repl_lines = 0, repl_lines_matched = 0, repl_lines_without_type = 0;
  for (const fs::path& program : programs) {
    std::string name = program.stem().string();
    std::string failure;
    if (mode == "reparse") {
      failure = reparse_failure(program);
    } else if (mode == "type") {
      CommandResult result = run_command(shell_quote(nesl_program) + " --type " +
                                         shell_quote(program.string()) + " 2>&1");
      std::string expected = normalize(read_file(program.parent_path() / (name + ".type")));
      std::string found = normalize(result.output);
      if (result.exit_status != 0 || found != expected) {
        failure = "expected type: " + expected + "\n  found: " + found;
      }
    } else if (mode == "repl") {
      fs::path repl = program.parent_path() / (name + ".repl");
      if (!fs::exists(repl)) continue;
      CommandResult result = run_command(shell_quote(nesl_program) + " --check " +
                                         shell_quote(program.string()) + " 2>&1");
      std::vector<std::string> found = split_lines(result.output);
      auto blocks = repl_blocks(read_file(repl));
      if (result.exit_status != 0) {
        failure = "nesl --check failed:\n" + result.output;
      } else if (found.size() != blocks.size()) {
        failure = std::to_string(blocks.size()) + " forms in the .repl, " +
                  std::to_string(found.size()) + " lines from nesl --check";
      } else {
        for (std::size_t i = 0; i < blocks.size(); ++i) {
          std::string expected = expected_check_line(blocks[i]);
          if (expected.empty()) {
            ++repl_lines_without_type;
            continue;
          }
          ++repl_lines;
          if (normalize(found[i]) == expected) {
            ++repl_lines_matched;
          } else {
            failure += "  form " + std::to_string(i + 1) + ": expected " + expected +
                       "\n          found    " + found[i] + "\n";
          }
        }
      }
    } else if (mode == "check") {
      CommandResult result = run_command(shell_quote(nesl_program) + " --check " +
                                         shell_quote(program.string()) + " 2>&1");
      if (result.exit_status != 0) failure = result.output;
    } else if (mode == "errors") {
      // Run from the program's folder so the diagnostic names it as NAME.nesl. A program that
      // type-checks must fail when compiled (specialize refuses what it cannot compile).
      auto diagnose = [&](const std::string& how) {
        return run_command("cd " + shell_quote(program.parent_path().string()) + " && " +
                           shell_quote(nesl_program) + " " + how + " " +
                           shell_quote(program.filename().string()) + " 2>&1 >/dev/null");
      };
      CommandResult result = diagnose("--check");
      if (result.exit_status == 0) result = diagnose("--vcode -o /dev/null");
      fs::path expected_file = program.parent_path() / (name + ".expected");
      std::string expected = fs::exists(expected_file) ? read_file(expected_file) : "(no .expected file)";
      if (result.exit_status == 0 || result.exit_status == -1) {
        failure = "expected a non-zero exit, found " + std::to_string(result.exit_status);
      } else if (result.output != expected) {
        failure = "expected diagnostic:\n" + expected + "found:\n" + result.output;
      }
    } else if (mode == "runtime-errors") {
      // `nesl NAME.nesl` run from its folder, stdout and stderr together: the classic's lines
      // and our note naming the NESL line, exactly NAME.expected, and exit status 1.
      fs::path argcheck_file = program.parent_path() / (name + ".argcheck");
      const std::string arg_check = fs::exists(argcheck_file) ? normalize(read_file(argcheck_file)) : "on";
      CommandResult result =
          run_command("cd " + shell_quote(program.parent_path().string()) + " && timeout 60 " +
                      shell_quote(nesl_program) + " --threads 1 --arg-check " + arg_check + " " +
                      shell_quote(program.filename().string()) + " 2>&1 </dev/null");
      fs::path expected_file = program.parent_path() / (name + ".expected");
      std::string expected = fs::exists(expected_file) ? read_file(expected_file) : "(no .expected file)";
      if (result.exit_status != 1) {
        failure = "expected exit status 1, found " + std::to_string(result.exit_status) + "\n";
      }
      if (result.output != expected) failure += "expected:\n" + expected + "found:\n" + result.output;
    } else if (mode == "run") {
      failure = run_failure(program, nesl_program, vinterp_command, scratch);
    } else if (mode == "repl-run") {
      if (!fs::exists(program.parent_path() / (name + ".repl"))) continue;
      failure = repl_run_failure(program, nesl_program);
    }
    bool gap = known_gaps.count(name) > 0;
    if (failure.empty() && gap) {
      ++tally.failed;
      tally.notes.push_back(name + ": listed as a known gap but passes; remove it from the list");
    } else if (failure.empty()) {
      ++tally.passed;
    } else if (gap) {
      ++tally.known_gaps;
      tally.notes.push_back(name + ": KNOWN GAP\n" + failure);
    } else {
      ++tally.failed;
      tally.notes.push_back(name + ": FAILED\n" + failure);
    }
  }
  if (mode == "run") fs::remove_all(scratch);
  for (const std::string& note : tally.notes) std::cout << note << "\n";
  // Programs without the file a mode compares with (NAME.repl) are not checked.
  const int checked = tally.passed + tally.failed + tally.known_gaps;
  std::cout << mode << ": " << tally.passed << " of " << checked << " programs pass";
  if (tally.known_gaps > 0) std::cout << ", " << tally.known_gaps << " known gaps";
  if (tally.failed > 0) std::cout << ", " << tally.failed << " FAILED";
  if (checked < static_cast<int>(programs.size()))
    std::cout << "; " << programs.size() - checked << " of " << programs.size() << " not checked (no NAME.repl)";
  std::cout << "\n";
  if (mode == "repl") {
    std::cout << "repl: " << repl_lines_matched << " of " << repl_lines
              << " typed lines match; " << repl_lines_without_type
              << " forms printed no type (run-time errors)\n";
  }
  if (checked == 0) {
    std::cout << "FAILED: no program in " << directory << " was checked\n";
    return 1;
  }
  return tally.failed > 0 ? 1 : 0;
}
