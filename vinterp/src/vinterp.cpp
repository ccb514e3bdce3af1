// vinterp: runs a VCODE program, a drop-in for the classic interpreter's command line
// (spec/VCODE.md §10) plus long options of our own. The program is vinterp::run (vinterp.hpp),
// which main.cpp calls: so that a program of tests can be the same vinterp with backends of its
// own registered (cmake/NeslBackends.cmake).
#include <boost/program_options.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "allocator_policy.hpp"
#include "backend_settings.hpp"
#include "vinterp.hpp"
#include "cvl/registry.hpp"
#include "environment_options.hpp"
#include "optimize_in_process.hpp"
#include "print_nesl.hpp"
#include "run_limits.hpp"
#include "vcode/lexer.hpp"
#include "vcode/parser.hpp"
#include "vcode/superop_print.hpp"
#include "vm/machine.hpp"
#include "vm/source_lines.hpp"

namespace po = boost::program_options;

namespace {

// The classic interpreter's options (spec/VCODE.md §10, with neslgpu's -l and -<num>), then
// vinterp's own long options; the backends' follow (usage_text()).
const char* const classic_and_common_usage =
    "vinterp [-cgt] [-m <num>] [-l <file>] [-<num>] [-d <debug-switch>] file-name\n"
    "\t -c \t\t check arguments (always on in this interpreter)\n"
    "\t -d abort\t dump core on internal error\n"
    "\t -d lex\t\t lex trace\n"
    "\t -d link\t link trace\n"
    "\t -d program\t dump program parse\n"
    "\t -d runtime\t trace call stack\n"
    "\t -d command\t trace commands executed\n"
    "\t -d stack\t trace vector stack\n"
    "\t -d values\t trace vector stack values\n"
    "\t -d heap\t trace heap usage (accepted; this interpreter has no arena)\n"
    "\t -g\t\t notify on memory compaction (accepted; there is no compaction)\n"
    "\t -l <file>\t library of fused operators (accepted; FCODE files define their own)\n"
    "\t -m <num>\t vector memory in 8-byte units (accepted; memory grows as needed)\n"
    "\t -<num>\t\t select a CUDA device (0-9; GPU backends)\n"
    "\t -t\t\t time program execution\n"
    "\t -O, --optimize\t optimize VCODE as fcode-opt does (fused superoperators), then run it\n"
    "Long options:\n"
    "\t --backend NAME\t\t the vector library (default cpu; --version lists this build's)\n"
    "\t --threads N\t\t CPU threads (default: all cores; 1 = sequential, exact)\n"
    "\t --float-rank correct|legacy\t FLOAT RANK order (legacy = the x86-64 reference's)\n"
    "\t --trace\t\t print each instruction and the stack's shape on stderr\n"
    "\t --trace-json FILE\t write a timeline of the run (Chrome trace events: Perfetto,\n"
    "\t\t\t\t chrome://tracing)\n"
    "\t --profile\t\t per-opcode counts, times and peak vector memory on stderr at the end\n"
    "\t --source-map MAP\t with --profile, also per NESL source line, from the map\n"
    "\t\t\t\t the nesl compiler wrote for the program\n"
    "\t --speculation\t\t GPU backends: a MAKE_SEGDES of lengths on the device guesses their sum\n"
    "\t\t\t\t instead of waiting for it; a region whose guess was too small runs again\n"
    "\t --max-call-depth N\t a CALL N frames deep is a runtime error (default 1000000)\n"
    "\t --max-memory SIZE\t vector memory limit: bytes, or with K, M, G, T (powers of 1024);\n"
    "\t\t\t\t default 3/4 of physical memory (cuda: the device's memory)\n"
    "\t --sandbox\t\t SPAWN and FOPEN are runtime errors (READ from stdin still works)\n"
    "\t --print-nesl\t\t print the final stack as NESL values with their types, as nesl\n"
    "\t\t\t\t prints them (it = [1, 4] : [int]), for VCODE that nesl wrote:\n"
    "\t\t\t\t it gives the types in a comment at its end\n";

const char* const help_and_environment_usage =
    "\t --help, --version\n"
    "Environment:\n"
    "\t VINTERP_OPTIONS\t options read before the command line's own (which win), for\n"
    "\t\t\t\t toolchains that call vinterp with fixed arguments:\n"
    "\t\t\t\t VINTERP_OPTIONS=\"--backend cuda -O\"\n";

// A backend's option as the usage text lists it: "--name ARGUMENT", tabs to the column of the
// descriptions (32), the description, its later lines indented to that column.
std::string usage_lines(const cvl::BackendOption& option) {
  std::string text = "\t --";
  text += option.name;
  if (!option.argument_name.empty()) (text += ' ') += option.argument_name;
  std::size_t column = 8 + text.size() - 1;  // the leading tab reaches column 8
  do {
    text += '\t';
    column = column / 8 * 8 + 8;
  } while (column < 32);
  std::string_view description = option.description;
  for (std::size_t end; (end = description.find('\n')) != std::string_view::npos;) {
    ((text += ' ') += description.substr(0, end)) += "\n\t\t\t\t";
    description.remove_prefix(end + 1);
  }
  ((text += ' ') += description) += '\n';
  return text;
}

// The usage text (--help, and after a bad command line): vinterp's options, then those of every
// backend folder, as its option groups declare them (cvl/backend_option_group.hpp).
const std::string& usage_text() {
  static const std::string text = [] {
    std::string usage = classic_and_common_usage;
    for (const cvl::BackendOptionGroup* group : cvl::backend_option_groups())
      for (const cvl::BackendOption& option : group->options) usage += usage_lines(option);
    return usage + help_and_environment_usage;
  }();
  return text;
}

// A bad command line: vinterp prints the message, then the usage text, and exits 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int usage_error(const std::string& message = "") {
  if (!message.empty()) std::fprintf(stderr, "vinterp: %s\n", message.c_str());
  std::fputs(usage_text().c_str(), stderr);
  return 1;
}

// Under mpirun every process runs vinterp over the same files, and would print each message
// before the backend exists (usage, load and -O errors, warnings, --help) once per process. Until
// the backend can say which process is the io root, the launcher's rank does: with a backend that
// names the variables a launcher gives the rank in (cvl::BackendEntry::rank_variables; --backend
// on the command line, else in VINTERP_OPTIONS), a process whose rank is not 0 prints nothing.
bool another_process_prints(int argc, char** argv) {
  const auto backend_in = [](const std::vector<std::string>& words) -> std::string {
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] == "--backend" && i + 1 < words.size()) return words[i + 1];
      if (words[i].starts_with("--backend=")) return words[i].substr(10);
    }
    return "";
  };
  std::string backend = backend_in(std::vector<std::string>(argv + 1, argv + argc));
  if (backend.empty()) backend = backend_in(vinterp::environment_options());
  const cvl::BackendEntry* entry = cvl::find_backend(backend);
  if (!entry) return false;
  for (std::string_view variable : entry->rank_variables)
    if (const char* rank = std::getenv(std::string(variable).c_str())) return std::string(rank) != "0";
  return false;
}

// Sends stdout and stderr to /dev/null while it lives: on a process that another one prints for,
// until the backend exists.
class Silenced {
 public:
  Silenced() {
    const int null = open("/dev/null", O_WRONLY);
    for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
      saved_[fd - 1] = dup(fd);
      if (null >= 0) dup2(null, fd);
    }
    if (null >= 0) close(null);
  }
  ~Silenced() {
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
      if (saved_[fd - 1] < 0) continue;
      dup2(saved_[fd - 1], fd);
      close(saved_[fd - 1]);
    }
  }
  Silenced(const Silenced&) = delete;
  Silenced& operator=(const Silenced&) = delete;

 private:
  int saved_[2] = {-1, -1};
};

// The classic -d switches that act while the program is loaded (the others are the machine's).
struct LoadTraces {
  bool lex = false;      // every token's text, on stdout
  bool link = false;     // every call linked
  bool program = false;  // the parsed program
};

// Everything a run needs, taken from the command line.
struct RunSettings {
  std::string file;
  std::string backend_name;
  cvl::BackendOptions backend;
  vm::MachineOptions machine;
  LoadTraces traces;
  bool optimize = false;   // -O
  bool print_nesl = false;  // --print-nesl
  std::string trace_json;  // --trace-json FILE ("" for none)
  std::string source_map;  // --source-map MAP ("" for none)
};

po::options_description command_line_options() {
  po::options_description options;
  options.add_options()
      ("help", "")
      ("version", "")
      (",c", "")
      (",g", "")
      (",t", "")
      (",m", po::value<unsigned long long>(), "")
      (",r", po::value<std::string>(), "")
      (",d", po::value<std::vector<std::string>>(), "")
      (",l", po::value<std::string>(), "")
      ("backend", po::value<std::string>()->default_value("cpu"), "")
      ("threads", po::value<int>()->default_value(0), "")
      ("float-rank", po::value<std::string>()->default_value("correct"), "")
      ("trace", "")
      ("trace-json", po::value<std::string>(), "")
      ("optimize,O", "")
      ("profile", "")
      ("source-map", po::value<std::string>(), "")
      ("max-call-depth", po::value<long long>(), "")
      ("max-memory", po::value<std::string>(), "")
      ("sandbox", "")
      ("speculation", "")
      ("print-nesl", "")
      ("file", po::value<std::vector<std::string>>(), "");
  for (char digit = '0'; digit <= '9'; ++digit)
    options.add_options()((std::string(",") + digit).c_str(), "");
  for (const cvl::BackendOptionGroup* group : cvl::backend_option_groups())
    for (const cvl::BackendOption& option : group->options) {
      const std::string name(option.name);
      switch (option.argument) {
        case cvl::OptionArgument::None: options.add_options()(name.c_str(), ""); break;
        case cvl::OptionArgument::Text:
          options.add_options()(name.c_str(), po::value<std::string>(), "");
          break;
        case cvl::OptionArgument::Integer:
          options.add_options()(name.c_str(), po::value<long long>(), "");
          break;
        case cvl::OptionArgument::Unsigned:
          options.add_options()(name.c_str(), po::value<unsigned long long>(), "");
          break;
      }
    }
  return options;
}

// The last -<digit> given, as getopt would have it.
std::optional<int> device_option(const po::parsed_options& parsed) {
  std::optional<int> device;
  for (const auto& option : parsed.options)
    if (const auto& key = option.string_key;
        key.size() == 2 && key[0] == '-' && std::isdigit(static_cast<unsigned char>(key[1])))
      device = key[1] - '0';
  return device;
}

// A bad VINTERP_OPTIONS: reported like a bad command line, naming the variable.
struct EnvironmentError : UsageError {
  using UsageError::UsageError;
};

// The command line, then VINTERP_OPTIONS beneath it: a value given in both places is the command
// line's (po::store keeps the first value stored), switches add up. Throws po::error for a
// command line Boost cannot parse and EnvironmentError for such a variable.
po::variables_map parse_command_line(int argc, char** argv, int& device) {
  const po::options_description options = command_line_options();  // `parsed` points into it
  const std::vector<std::string> words = vinterp::environment_options();
  std::optional<po::parsed_options> from_environment;
  try {  // first, so that its mistakes are reported as its own
    from_environment = po::command_line_parser(words).options(options).run();
  } catch (const po::error& e) {
    throw EnvironmentError(std::string(vinterp::options_variable) + ": " + e.what());
  }
  for (const auto& option : from_environment->options)
    if (option.position_key != -1)
      throw EnvironmentError(std::string(vinterp::options_variable) + ": '" +
                             option.value.front() +
                             "' is not an option (the file belongs on the command line)");
  po::positional_options_description positional;
  positional.add("file", -1);
  auto parsed = po::command_line_parser(argc, argv).options(options).positional(positional).run();
  device = device_option(parsed).value_or(device_option(*from_environment).value_or(0));
  po::variables_map args;
  po::store(parsed, args);
  try {  // values are converted here
    po::store(*from_environment, args);
  } catch (const po::error& e) {
    throw EnvironmentError(std::string(vinterp::options_variable) + ": " + e.what());
  }
  po::notify(args);
  return args;
}

void print_version() {
  std::printf("vinterp %s (backends:", NESL_VERSION);
  for (const auto& name : cvl::available_backends()) std::printf(" %s", name.c_str());
  std::printf(")\n");
  for (const cvl::BackendEntry* entry : cvl::registered_backends())
    if (entry->version_note)
      std::printf("%s %s\n", std::string(entry->name).c_str(), entry->version_note().c_str());
}

bool apply_debug_switch(const std::string& name, vm::DebugSwitches& d, LoadTraces& traces) {
  if (name == "abort") d.abort = true;
  else if (name == "lex") traces.lex = true;
  else if (name == "link") traces.link = true;
  else if (name == "program") traces.program = true;
  else if (name == "runtime") d.runtime = true;
  else if (name == "command") d.command = true;
  else if (name == "stack") d.stack = true;
  else if (name == "values") d.values = true;
  else if (name == "heap") {}
  else return false;
  return true;
}

vm::MachineOptions machine_options(const po::variables_map& args, LoadTraces& traces) {
  vm::MachineOptions options;
  options.time_program = args.count("-t") > 0;
  options.trace = args.count("trace") > 0;
  options.profile = args.count("profile") > 0;
  options.sandbox = args.count("sandbox") > 0;
  options.speculation = args.count("speculation") > 0;
  if (args.count("max-call-depth")) {
    try {
      options.max_call_depth = vinterp::checked_call_depth(args["max-call-depth"].as<long long>());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (args.count("-d"))
    for (const auto& name : args["-d"].as<std::vector<std::string>>())
      if (!apply_debug_switch(name, options.debug, traces))
        throw UsageError("unknown debug switch -d " + name);
  return options;
}

// The values given for the backends' own options (cvl/backend_option_group.hpp).
cvl::GivenOptions given_backend_options(const po::variables_map& args) {
  cvl::GivenOptions given;
  for (const cvl::BackendOptionGroup* group : cvl::backend_option_groups())
    for (const cvl::BackendOption& option : group->options) {
      const std::string name(option.name);
      if (!args.count(name)) continue;
      switch (option.argument) {
        case cvl::OptionArgument::None: given.set(name, {}); break;
        case cvl::OptionArgument::Text: given.set(name, args[name].as<std::string>()); break;
        case cvl::OptionArgument::Integer: given.set(name, args[name].as<long long>()); break;
        case cvl::OptionArgument::Unsigned:
          given.set(name, args[name].as<unsigned long long>());
          break;
      }
    }
  return given;
}

cvl::BackendOptions backend_options(const po::variables_map& args, int device) {
  vinterp::BackendSettings settings;
  settings.backend = args["backend"].as<std::string>();
  settings.threads = args["threads"].as<int>();
  settings.device = device;
  if (args.count("max-memory")) {
    try {
      settings.max_memory = vinterp::parse_memory_size(args["max-memory"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  const std::string rank = args["float-rank"].as<std::string>();
  if (rank == "legacy") settings.float_rank = cvl::FloatRankOrder::Legacy;
  else if (rank != "correct") throw UsageError("--float-rank must be correct or legacy");
  settings.given = given_backend_options(args);
  try {
    return vinterp::backend_options(settings);
  } catch (const cvl::OptionError& e) {
    throw UsageError(e.what());
  }
}

// The settings of a run; throws UsageError for a command line that asks for none.
RunSettings run_settings(const po::variables_map& args, int device) {
  if (args.count("-r")) throw UsageError("-r is not implemented (as in the classic interpreter)");
  const auto files =
      args.count("file") ? args["file"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 1) throw UsageError("Please supply file name.");
  RunSettings settings;
  settings.file = files.front();
  settings.backend_name = args["backend"].as<std::string>();
  settings.machine = machine_options(args, settings.traces);
  settings.backend = backend_options(args, device);
  settings.optimize = args.count("optimize") > 0;
  settings.print_nesl = args.count("print-nesl") > 0;
  if (args.count("trace-json")) {
    settings.trace_json = args["trace-json"].as<std::string>();
    if (settings.trace_json.empty()) throw UsageError("--trace-json needs a file name");
  }
  if (args.count("source-map")) {
    settings.source_map = args["source-map"].as<std::string>();
    if (!settings.machine.profile) throw UsageError("--source-map goes with --profile");
  }
  return settings;
}

void print_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines) std::fprintf(stderr, "%s\n", line.c_str());
}

// The program, or nothing after printing why it cannot be loaded.
std::optional<vcode::Program> load_or_report(const std::string& file) {
  std::vector<std::string> warnings;
  try {
    vcode::Program program = vcode::load_program(file, {&warnings});
    print_lines(warnings);
    return program;
  } catch (const vcode::LoadError& e) {
    print_lines(warnings);
    std::fprintf(stderr, "%s\nParse failure\n", e.what());
  } catch (const std::exception& e) {  // the file cannot be read
    std::fprintf(stderr, "vinterp: %s\n", e.what());
  }
  return std::nullopt;
}

// -d lex: the classic prints every token's text on stdout.
void print_tokens(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<vcode::Diagnostic> ignored;
  for (const auto& token : vcode::tokenize(source, ignored))
    if (token.kind != vcode::TokenKind::End)
      std::printf("%.*s\n", int(token.text.size()), token.text.data());
}

void print_linked_calls(const vcode::Program& program) {
  for (const auto& ins : program.code)
    if (ins.op == vcode::Op::Call)
      std::fprintf(stderr, "vinterp: linker: linking %s\n", ins.callee.c_str());
}

void list_program(const vcode::Program& program) {
  for (const auto& superop : program.superops)  // FCODE: the definitions FUSED n refers to
    std::fprintf(stderr, "%s\n", vcode::superop_text(superop).c_str());
  for (std::size_t i = 0; i < program.code.size(); ++i) {
    const auto& ins = program.code[i];
    std::fprintf(stderr, "(%zu) vop = %s; line = %d", i,
                 vcode::instruction_text(program, ins).c_str(), ins.where.line);
    if (ins.target != vcode::no_target) std::fprintf(stderr, "; branch to %u", ins.target);
    std::fputc('\n', stderr);
  }
}

void print_load_traces(const RunSettings& settings, const vcode::Program& program) {
  if (settings.traces.lex) print_tokens(settings.file);
  if (settings.traces.link) print_linked_calls(program);
  if (settings.traces.program) list_program(program);
}

// The backend, or nullptr after printing why there is none (a GPU backend on a machine without a
// usable GPU: "no CUDA device: ...").
std::unique_ptr<cvl::Backend> make_backend_or_report(const RunSettings& settings) {
  std::unique_ptr<cvl::Backend> backend;
  try {
    backend = cvl::make_backend(settings.backend_name, settings.backend);
  } catch (...) {
    std::fprintf(stderr, "%s\n", vm::failure_line(vm::current_failure(), "").c_str());
    return nullptr;
  }
  if (!backend) {
    std::string names;
    for (const auto& name : cvl::available_backends()) names += " " + name;
    std::fprintf(stderr, "vinterp: backend '%s' is not available in this build (available:%s)\n",
                 settings.backend_name.c_str(), names.c_str());
  }
  return backend;
}

// The exit status of the run; failures while the machine prepares the constants name the file.
int run_program(const vcode::Program& program, cvl::Backend& backend, const RunSettings& settings) {
  try {
    vm::Machine machine(program, backend, settings.machine);
    return machine.run();
  } catch (...) {  // printed once in a distributed run (vm::report_failure)
    return vm::report_failure(backend, vm::failure_line(vm::current_failure(), settings.file));
  }
}

// --print-nesl: the run, then the final stack as NESL values. A program that stopped by EXIT (a
// NESL runtime error, which it printed) fails, as it does under `nesl FILE`.
int run_printing_nesl(const vcode::Program& program, cvl::Backend& backend, RunSettings& settings,
                      const nesl::ResultTypes& types) {
  std::string stack;
  std::vector<std::uint32_t> stopped_at;
  settings.machine.final_stack = &stack;
  settings.machine.stopped_at = &stopped_at;
  const int status = run_program(program, backend, settings);
  if (status != 0) return status;
  if (!stopped_at.empty()) return 1;
  if (!cvl::distributed_io_of(backend).is_io_root()) return 0;  // the io root prints
  return vinterp::print_nesl_values(stack, types, settings.file) ? 0 : 1;
}

// -O: the program optimized in place, its time given to --profile; false after printing why it
// could not be (as fcode-opt reports it).
bool optimize_or_report(vcode::Program& program, RunSettings& settings, vm::TraceJson* trace) {
  const auto start = vm::TraceJson::Clock::now();
  try {
    settings.machine.optimize_seconds = vinterp::optimize_in_process(program).seconds;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vinterp: -O: %s: %s\n", settings.file.c_str(), e.what());
    return false;
  }
  if (trace) trace->phase("optimize (-O)", start, vm::TraceJson::Clock::now());
  return true;
}

// --trace-json: the writer, or nullptr after printing why the file cannot be written.
std::unique_ptr<vm::TraceJson> open_trace_or_report(const RunSettings& settings) {
  try {
    return std::make_unique<vm::TraceJson>(
        settings.trace_json, "vinterp " + settings.file + " (--backend " + settings.backend_name + ")");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vinterp: %s\n", e.what());
    return nullptr;
  }
}

// --source-map: the map, or nothing after printing why it cannot be read.
std::optional<vm::SourceLines> source_lines_or_report(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "vinterp: --source-map: cannot read %s\n", file.c_str());
    return std::nullopt;
  }
  try {
    return vm::SourceLines::read(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vinterp: --source-map: %s: %s\n", file.c_str(), e.what());
    return std::nullopt;
  }
}

}  // namespace

int vinterp::run(int argc, char** argv) {
  vinterp::keep_freed_memory_for_reuse();  // the whole process's choice (allocator_policy.hpp)
  const bool quiet = another_process_prints(argc, argv);
  std::optional<Silenced> silenced;
  if (quiet) silenced.emplace();
  // A failure before the backend exists is the same on every process, and only rank 0 prints it.
  // mpirun ends the whole job at the first process that exits with a failure, so the others wait
  // before they exit: rank 0's message must be out by then (it was lost otherwise, now and then).
  const auto failed_early = [quiet](int status) {
    if (quiet) std::this_thread::sleep_for(std::chrono::seconds(2));
    return status;
  };
  RunSettings settings;
  try {
    int device = 0;
    const po::variables_map args = parse_command_line(argc, argv, device);
    if (args.count("help")) {
      std::fputs(usage_text().c_str(), stdout);
      return 0;
    }
    if (args.count("version")) {
      print_version();
      return 0;
    }
    settings = run_settings(args, device);
  } catch (const po::error& e) {
    return failed_early(usage_error(e.what()));
  } catch (const UsageError& e) {
    return failed_early(usage_error(e.what()));
  }

  std::unique_ptr<vm::TraceJson> trace;
  if (!settings.trace_json.empty()) {  // the file is written where messages are printed
    trace = quiet ? std::make_unique<vm::TraceJson>() : open_trace_or_report(settings);
    if (!trace) return failed_early(1);
    settings.machine.trace_json = trace.get();
  }
  std::optional<vm::SourceLines> source_lines;
  if (!settings.source_map.empty()) {
    if (!(source_lines = source_lines_or_report(settings.source_map))) return failed_early(1);
    settings.machine.source_lines = &*source_lines;
  }
  const auto load_start = vm::TraceJson::Clock::now();
  std::optional<vcode::Program> program = load_or_report(settings.file);
  if (!program) return failed_early(1);
  std::optional<nesl::ResultTypes> result_types;
  if (settings.print_nesl && !(result_types = vinterp::result_types_or_report(settings.file)))
    return failed_early(1);
  if (trace) trace->phase("load", load_start, vm::TraceJson::Clock::now());
  print_load_traces(settings, *program);
  if (settings.optimize && !optimize_or_report(*program, settings, trace.get()))
    return failed_early(1);
  std::unique_ptr<cvl::Backend> backend = make_backend_or_report(settings);
  if (!backend) return failed_early(1);
  // From here on the backend says who prints: the io root; the others' stdout is discarded, and
  // the machine prints on their stderr only a failure that they alone saw.
  silenced.reset();
  if (!cvl::distributed_io_of(*backend).is_io_root()) {  // (where /dev/null cannot be opened, nothing writes there anyway)
    [[maybe_unused]] std::FILE* discarded = std::freopen("/dev/null", "w", stdout);
  }
  const int status = result_types ? run_printing_nesl(*program, *backend, settings, *result_types)
                                  : run_program(*program, *backend, settings);
  if (trace) {
    try {
      trace->finish(vm::TraceJson::Clock::now());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vinterp: %s\n", e.what());
      return status == 0 ? 1 : status;
    }
  }
  return status;
}
