// Child processes for the corpus runner: fork/exec, two pipes drained with poll, a kill on timeout.
#include "process.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace corpus {

namespace {

using Clock = std::chrono::steady_clock;

// More than any program here prints; beyond this we keep draining but stop storing.
constexpr std::size_t output_limit = std::size_t{256} << 20;
// How long stdout/stderr may stay open after the child itself has exited (a spawned helper
// such as `cat` finishing its output) before the rest of its process group is killed.
constexpr auto straggler_grace = std::chrono::seconds(5);

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool make() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void close_read() {
    if (read_end >= 0) close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
};

// Reads what is available; returns false at end of file.
bool drain(int fd, std::string& into) {
  char buffer[65536];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      if (into.size() < output_limit) into.append(buffer, std::min<std::size_t>(n, output_limit - into.size()));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;  // other errors: treat as closed
  }
}

[[noreturn]] void child_fail(int report_fd, const char* what) {
  int error = errno;
  char message[512];
  int n = std::snprintf(message, sizeof message, "%s: %s", what, std::strerror(error));
  if (n > 0) {
    ssize_t ignored = write(report_fd, message, std::min<std::size_t>(n, sizeof message - 1));
    (void)ignored;
  }
  _exit(127);
}

}  // namespace

int shell_status(const ProcessResult& result) {
  return result.exited ? result.exit_code : 128 + result.signal;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& working_directory,
                          const std::string& stdin_path, double timeout_seconds) {
  ProcessResult result;
  Pipe out, err, report;
  if (!out.make() || !err.make() || !report.make()) {
    result.launch_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<char*> c_argv;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);

  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  pid_t pid = fork();
  if (pid < 0) {
    result.launch_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here on.
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    int in = open(stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) child_fail(report.write_end, stdin_path.c_str());
    if (dup2(in, 0) < 0 || dup2(out.write_end, 1) < 0 || dup2(err.write_end, 2) < 0) child_fail(report.write_end, "dup2");
    if (chdir(working_directory.c_str()) != 0) child_fail(report.write_end, working_directory.c_str());
    execv(c_argv[0], c_argv.data());
    child_fail(report.write_end, c_argv[0]);
  }
  setpgid(pid, pid);  // also from here, so that a kill right away reaches the group
  out.close_write();
  err.close_write();
  report.close_write();

  // The report pipe closes on a successful exec (O_CLOEXEC) or carries the reason it failed.
  std::string launch_message;
  while (drain(report.read_end, launch_message)) {
  }
  report.close_read();

  fcntl(out.read_end, F_SETFL, fcntl(out.read_end, F_GETFL) | O_NONBLOCK);
  fcntl(err.read_end, F_SETFL, fcntl(err.read_end, F_GETFL) | O_NONBLOCK);

  int status = 0;
  rusage usage{};
  bool reaped = false;
  bool killed_group = false;
  Clock::time_point reaped_at{};
  for (;;) {
    if (!reaped && wait4(pid, &status, WNOHANG, &usage) == pid) {
      reaped = true;
      reaped_at = Clock::now();
    }
    const bool pipes_open = out.read_end >= 0 || err.read_end >= 0;
    if (reaped && !pipes_open) break;
    const auto now = Clock::now();
    if (now >= deadline && !result.timed_out) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      killed_group = true;
      if (!reaped) {
        while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
        }
        reaped = true;
        reaped_at = Clock::now();
      }
    }
    if (reaped && pipes_open && now - reaped_at >= straggler_grace) {
      if (!killed_group) {
        kill(-pid, SIGKILL);  // helpers the program left behind
        killed_group = true;
      } else if (now - reaped_at >= 2 * straggler_grace) {
        break;  // something outside the group holds the pipes; give up on the rest
      }
    }
    if (!pipes_open) {  // the child closed its outputs and is exiting
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    pollfd fds[2];
    nfds_t count = 0;
    if (out.read_end >= 0) fds[count++] = {out.read_end, POLLIN, 0};
    if (err.read_end >= 0) fds[count++] = {err.read_end, POLLIN, 0};
    auto wait = std::chrono::milliseconds(reaped ? 100 : 50);
    if (!result.timed_out) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(1);
      wait = std::min(wait, left);
    }
    int ready = poll(fds, count, int(wait.count()));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      const bool is_out = fds[i].fd == out.read_end;
      if (!drain(fds[i].fd, is_out ? result.out : result.err)) (is_out ? out : err).close_read();
    }
  }
  out.close_read();
  err.close_read();
  if (!reaped) {
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.peak_kb = usage.ru_maxrss;
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (!launch_message.empty()) result.launch_error = launch_message;
  return result;
}

}  // namespace corpus
