#include "nesl/repl.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "nesl/diagnostics.hpp"
#include "nesl/help.hpp"
#include "nesl/history_entry.hpp"
#include "nesl/lexer.hpp"
#include "nesl/parser.hpp"

// libedit's GNU readline interface (after <cstdio>: it uses FILE).
#include <editline/readline.h>

namespace nesl {
namespace {

// Set by Ctrl-C (SIGINT): the VM stops the running form at its next call (VmSettings::interrupt);
// at the prompt it drops what was typed.
std::atomic<bool> interrupt_requested{false};
// Set when a Ctrl-C at the prompt ended the line being typed: it is dropped.
bool line_dropped = false;

// The loop's thread: a SIGINT that lands on another (a backend's worker) is passed to it, so that
// its read at the prompt is interrupted.
pthread_t loop_thread;

extern "C" void on_interrupt(int signal) {
  interrupt_requested.store(true);
  if (!pthread_equal(pthread_self(), loop_thread)) pthread_kill(loop_thread, signal);
}

// libedit's key reader: a read that a Ctrl-C interrupts ends the line, which is then dropped.
int read_key(FILE*) {
  while (true) {
    unsigned char key = 0;
    const ssize_t n = ::read(STDIN_FILENO, &key, 1);
    if (n == 1) return key;
    if (n == 0 || errno != EINTR) return EOF;
    if (interrupt_requested.exchange(false)) {
      line_dropped = true;
      return '\n';
    }
  }
}

// SIGINT goes to on_interrupt while the loop runs, the earlier action after. At a terminal a
// read is interrupted (read_key ends the line); from a pipe it goes on (SA_RESTART).
class InterruptHandler {
 public:
  explicit InterruptHandler(bool terminal) {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = terminal ? 0 : SA_RESTART;
    loop_thread = pthread_self();
    sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptHandler() { sigaction(SIGINT, &previous_, nullptr); }
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

 private:
  struct sigaction previous_ {};
};

// Where lines come from: libedit at a terminal, std::getline elsewhere.
class LineInput {
 public:
  LineInput() : terminal_(isatty(STDIN_FILENO) == 1) {
    if (!terminal_) return;
    // Before libedit starts (using_history starts it): keys through read_key, and no signal
    // handling of its own, which would pass SIGINT on to the whole process group.
    rl_getc_function = read_key;
    rl_catch_signals = 0;
    if (const char* home = std::getenv("HOME")) history_ = std::string(home) + "/.nesl_history";
    using_history();
    stifle_history(1000);
    if (!history_.empty()) read_history(history_.c_str());
  }
  ~LineInput() {
    if (terminal_ && !history_.empty()) write_history(history_.c_str());
  }
  LineInput(const LineInput&) = delete;
  LineInput& operator=(const LineInput&) = delete;

  bool terminal() const { return terminal_; }
  // Whether Ctrl-C ended the last line read: the form being typed is to be dropped.
  bool dropped() const { return line_dropped; }

  // The next line without its newline; nothing at the end of input.
  std::optional<std::string> read(bool continuation) {
    if (!terminal_) {
      std::string line;
      if (!std::getline(std::cin, line)) return std::nullopt;
      return line;
    }
    std::fflush(stdout);
    line_dropped = false;
    char* raw = readline(continuation ? "> " : "<Nesl> ");
    if (!raw) return std::nullopt;
    std::string line(raw);
    std::free(raw);
    if (line_dropped) return std::string();  // and dropped() says so
    return line;
  }

  // A form read whole (all its lines): one history entry.
  void remember(const std::string& typed) {
    if (!terminal_) return;
    if (const std::string entry = history_entry(typed); !entry.empty()) add_history(entry.c_str());
  }

 private:
  bool terminal_;
  std::string history_;
};

// The words of a command, its terminator and comments dropped: `set arg_check off;` -> set,
// arg_check, off.
std::vector<std::string> command_words(const std::string& text) {
  std::string body;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t close = text[i] == '%' ? text.find('%', i + 1) : std::string::npos;
    if (close == std::string::npos) body += text[i];
    else i = close;
  }
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
  if (!body.empty() && (body.back() == ';' || body.back() == '$')) body.pop_back();
  std::istringstream in(body);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

class Repl {
 public:
  explicit Repl(Session& session) : session_(session), interrupts_(input_.terminal()) {
    SessionSettings settings = session_.settings();
    settings.vm.interrupt = &interrupt_requested;
    session_.change_settings(settings);
  }

  int run() {
    if (input_.terminal())
      std::cout << "NESL (in-process VCODE). Type help; for the commands, describe NAME; for a function,\n"
                   "exit; to leave.\n";
    std::string pending;
    while (true) {
      std::optional<std::string> line = input_.read(!pending.empty());
      // A Ctrl-C from now on stops what this line runs; one before it is spent.
      interrupt_requested.store(false);
      if (line && input_.dropped()) {  // Ctrl-C at the prompt: the form typed so far goes
        pending.clear();
        continue;
      }
      if (!line) {
        if (pending.find_first_not_of(" \t\n") != std::string::npos) {
          input_.remember(pending);
          submit(pending, true);
        }
        break;
      }
      pending += *line + "\n";
      if (!has_form_end(pending)) continue;
      const std::string typed = pending;  // submit takes out the commands that ran
      if (submit(pending, false)) {
        input_.remember(typed);
        pending.clear();
      }
      if (leaving_) break;
    }
    if (input_.terminal()) std::cout << "\n";
    std::cout.flush();
    return 0;
  }

 private:
  // Runs what was typed; false when it is not complete yet (more lines are needed), with the
  // commands that ran taken out of `text`, so that they do not run again.
  bool submit(std::string& text, bool at_end) {
    if (run_leading_commands(text)) return true;
    auto source = std::make_shared<SourceFile>("stdin", text);
    Program program;
    try {
      program = parse_program(source);
    } catch (const CompileError& error) {
      const bool incomplete = error.message().ends_with("found end of file");
      if (incomplete && !at_end) return false;
      std::cerr << format_diagnostic(error);
      std::cerr.flush();
      return true;
    }
    session_.run(std::move(program));
    return true;
  }

  // Runs the commands at the start of `text` one by one (a command ends at its first `;` or
  // `$`) and takes each out, but for its line breaks, so that the forms after it keep their
  // lines; true when nothing but commands was typed (or `exit;` ran).
  bool run_leading_commands(std::string& text) {
    while (true) {
      const std::size_t end = form_end(text);
      if (end == std::string_view::npos) return command_words(text).empty();
      if (!command(text.substr(0, end + 1))) return false;
      const std::string line_breaks(std::count(text.begin(), text.begin() + end + 1, '\n'), '\n');
      const std::size_t next = text.find_first_not_of(" \t", end + 1);
      text = line_breaks + (next == std::string::npos ? "" : text.substr(next));
      if (leaving_) return true;
    }
  }

  // The classic's top-level commands; false for anything else (a NESL form).
  bool command(const std::string& text) {
    const std::vector<std::string> words = command_words(text);
    if (words.empty()) return true;
    const std::string verb = lowercase(words[0]);
    if (words.size() == 1 && (verb == "exit" || verb == "quit")) {
      leaving_ = true;
      return true;
    }
    if (words.size() == 1 && verb == "help") {
      std::cout << help_text() << std::flush;
      return true;
    }
    if (words.size() == 1 && verb == "describe") {
      std::cout << "describe NAME; prints the type and meaning of a function, operator or constant.\n"
                << std::flush;
      return true;
    }
    // `help NAME;` is `describe NAME;`; `describe = 5;` binds a variable.
    if (words.size() == 2 && (verb == "describe" || verb == "help") && words[1] != "=") {
      describe_name(session_, words[1], std::cout, std::cerr);
      return true;
    }
    // `show WORD` and `set WORD ...` are commands, even mistaken ones (said so); `set = 5;` is
    // still a binding.
    const bool names_something = words.size() == 1 || is_plain_word(words[1]);
    if (verb == "show" && names_something) {
      if (words.size() == 2 && lowercase(words[1]) == "status") {
        show_status();
      } else {
        error("show takes status: show status; prints the settings.");
      }
      return true;
    }
    if (verb == "set" && names_something) {
      std::string value;
      for (std::size_t i = 2; i < words.size(); ++i) value += (i > 2 ? " " : "") + words[i];
      set(words.size() > 1 ? lowercase(words[1]) : "", value);
      return true;
    }
    return false;
  }

  static bool is_plain_word(const std::string& word) {
    for (char c : word)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return !word.empty();
  }

  void set(const std::string& what, const std::string& value) {
    const std::string problem = session_.set(what, value);
    if (!problem.empty()) error(problem);
  }

  void show_status() {
    const SessionSettings& s = session_.settings();
    std::cout << "arg_check " << (s.argument_checks ? "on" : "off") << "\n"
              << "backend " << s.vm.backend << "\n"
              << "threads " << s.vm.threads << "\n"
              << "optimize " << (s.vm.optimize ? "on" : "off") << "\n"
              << "print_length " << s.print_length << "\n"
              << std::flush;
  }

  void error(const std::string& message) {
    std::cout << "Error at top level.  \n" << message << "\n" << std::flush;
  }

  Session& session_;
  LineInput input_;
  InterruptHandler interrupts_;
  bool leaving_ = false;
};

}  // namespace

std::size_t form_end(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '`') {
      ++i;  // the character itself, whatever it is
    } else if (c == '%') {
      const std::size_t close = text.find('%', i + 1);
      if (close == std::string_view::npos) return std::string_view::npos;
      i = close;
    } else if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (i >= text.size()) return std::string_view::npos;
    } else if (c == ';' || c == '$') {
      return i;
    }
  }
  return std::string_view::npos;
}

bool has_form_end(std::string_view text) { return form_end(text) != std::string_view::npos; }

int run_repl(Session& session) { return Repl(session).run(); }

}  // namespace nesl
