// SPAWN: run a child process whose standard streams are VCODE streams or new pipes
// (spec/VCODE.md §6.12).
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "machine.hpp"

namespace vm {

void Machine::exec_spawn() {  // cmd in out err -> err' out' in' msg ok
  std::int32_t fds[3];  // in, out, err as given
  for (int k = 0; k < 3; ++k) {
    const Value& v = from_top(2 - k);
    if (v.kind != Kind::Int || v.length() != 1)
      fail("SPAWN: stream argument is not an integer scalar");
    fds[k] = read_int(v, 0);
  }
  const Value& command_value = from_top(3);
  if (command_value.kind != Kind::Int) fail("SPAWN: first arg not string");
  std::string command;
  for (auto c : read_ints(command_value)) command += static_cast<char>(c);
  stack_.resize(stack_.size() - 4);

  for (int k = 0; k < 3; ++k)
    if (fds[k] != -1 && !valid_stream(fds[k])) {
      for (int j = 2; j >= 0; --j) push(int_scalar(fds[j]));
      return push_status("vinterp: illegal VCODE file descriptor for SPAWN: " +
                         std::to_string(fds[k]));
    }
  // The io root runs the child; every process learns the streams it got (err out in, as pushed)
  // and which of them are new.
  std::vector<std::int32_t> result_fds;
  std::string message;
  on_io_root([&](SharedResult& out) {
    std::int32_t result_fd[3];
    message = spawn(command, fds, result_fd);
    out << std::vector<std::int32_t>{result_fd[2], result_fd[1], result_fd[0]} << message;
  }) >> result_fds >> message;
  for (int k = 0; k < 3; ++k) {
    const std::int32_t fd = result_fds[2 - k];
    if (fds[k] == -1 && fd != -1) streams_[fd].open = true;
  }
  for (std::int32_t fd : result_fds) push(int_scalar(fd));
  push_status(message);
}

// Runs `command` with the streams `fds` (in, out, err; -1: a new pipe) on the io root; the
// streams it gets are `result_fd` (a new pipe's end in a new slot, -1 where no slot was free).
// Returns the status message.
std::string Machine::spawn(const std::string& command, const std::int32_t fds[3],
                           std::int32_t result_fd[3]) {
  for (int k = 0; k < 3; ++k) result_fd[k] = fds[k];
  while (waitpid(-1, nullptr, WNOHANG) > 0) {}  // reap children that have finished

  int child_fd[3];       // what the child gets as 0, 1, 2
  int parent_fd[3] = {-1, -1, -1};  // our ends of new pipes
  for (int k = 0; k < 3; ++k) {
    if (fds[k] != -1) {
      std::fflush(streams_[fds[k]].file);
      child_fd[k] = fileno(streams_[fds[k]].file);
      continue;
    }
    int ends[2];
    if (pipe(ends) != 0) return "SPAWN: error opening pipe";
    child_fd[k] = k == 0 ? ends[0] : ends[1];
    parent_fd[k] = k == 0 ? ends[1] : ends[0];
    fcntl(parent_fd[k], F_SETFD, FD_CLOEXEC);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return std::string("SPAWN: error performing fork:") + std::strerror(errno);
  if (pid == 0) {
    for (int k = 0; k < 3; ++k) dup2(child_fd[k], k);
    std::istringstream words(command);
    std::vector<std::string> argv_strings;
    for (std::string w; words >> w;) argv_strings.push_back(w);
    std::vector<char*> argv;
    for (auto& w : argv_strings) argv.push_back(w.data());
    argv.push_back(nullptr);
    if (!argv_strings.empty()) execvp(argv[0], argv.data());
    std::fprintf(stderr, "vinterp: internal error: execvp failed:\n\t%s\n\tcommand was %s\n",
                 std::strerror(errno), command.c_str());
    _exit(1);
  }
  for (int k = 0; k < 3; ++k) {
    if (parent_fd[k] < 0) continue;
    close(child_fd[k]);
    const std::int32_t slot = free_stream();
    std::FILE* file = slot < 0 ? nullptr : fdopen(parent_fd[k], k == 0 ? "w" : "r");
    if (!file) {
      close(parent_fd[k]);
      result_fd[k] = -1;
      continue;
    }
    streams_[slot] = {true, file};
    result_fd[k] = slot;
  }
  return "";
}

}  // namespace vm
