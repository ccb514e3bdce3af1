// Runs one child process with its stdin from a file, capturing stdout and stderr, under a timeout.
#pragma once

#include <string>
#include <vector>

namespace corpus {

struct ProcessResult {
  std::string out;          // everything the child (and its own children) wrote to stdout
  std::string err;          // … and to stderr
  bool exited = false;      // ended by exit(); then `exit_code` is its status
  int exit_code = -1;
  int signal = 0;           // the signal that killed it, when !exited
  bool timed_out = false;   // killed by us after `timeout_seconds`
  double seconds = 0.0;     // wall time
  long peak_kb = 0;         // peak resident memory, of the child or the largest of its children
  std::string launch_error; // non-empty when the child could not be started at all
};

// Runs `argv` (argv[0] is a path, not searched in PATH) in `working_directory` with stdin read
// from `stdin_path`. The child leads its own process group; on timeout the whole group is killed,
// so programs that SPAWN helpers cannot outlive the run.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& working_directory,
                          const std::string& stdin_path, double timeout_seconds);

// The exit status as a shell would show it: the code, or 128 + the signal number.
int shell_status(const ProcessResult& result);

}  // namespace corpus
