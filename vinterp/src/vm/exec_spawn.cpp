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

  auto results = [&](std::int32_t in, std::int32_t out, std::int32_t err, const std::string& message) {
    push(int_scalar(err));
    push(int_scalar(out));
    push(int_scalar(in));
    push_status(message);
  };
  for (int k = 0; k < 3; ++k)
    if (fds[k] != -1 && !valid_stream(fds[k]))
      return results(fds[0], fds[1], fds[2],
                     "vinterp: illegal VCODE file descriptor for SPAWN: " + std::to_string(fds[k]));

  while (waitpid(-1, nullptr, WNOHANG) > 0) {}  // reap children that have finished

  int child_fd[3];       // what the child gets as 0, 1, 2
  int parent_fd[3] = {-1, -1, -1};  // our ends of new pipes
  for (int k = 0; k < 3; ++k) {
    if (fds[k] != -1) {
      std::fflush(streams_[fds[k]]);
      child_fd[k] = fileno(streams_[fds[k]]);
      continue;
    }
    int ends[2];
    if (pipe(ends) != 0) return results(fds[0], fds[1], fds[2], "SPAWN: error opening pipe");
    child_fd[k] = k == 0 ? ends[0] : ends[1];
    parent_fd[k] = k == 0 ? ends[1] : ends[0];
    fcntl(parent_fd[k], F_SETFD, FD_CLOEXEC);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return results(fds[0], fds[1], fds[2], std::string("SPAWN: error performing fork:") + std::strerror(errno));
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
  std::int32_t result_fd[3];
  for (int k = 0; k < 3; ++k) {
    if (parent_fd[k] < 0) {
      result_fd[k] = fds[k];
      continue;
    }
    close(child_fd[k]);
    std::size_t slot = 3;
    while (slot < streams_.size() && streams_[slot]) ++slot;
    if (slot == streams_.size()) {
      close(parent_fd[k]);
      result_fd[k] = -1;
      continue;
    }
    streams_[slot] = fdopen(parent_fd[k], k == 0 ? "w" : "r");
    result_fd[k] = static_cast<std::int32_t>(slot);
  }
  results(result_fd[0], result_fd[1], result_fd[2], "");
}

}  // namespace vm
