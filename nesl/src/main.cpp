// The nesl program: runs a NESL file or an interactive session in this process, or compiles a
// file and prints what the options ask for.
#include <boost/program_options.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cvl/registry.hpp"
#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/help.hpp"
#include "nesl/eval_globals.hpp"
#include "nesl/large_stack.hpp"
#include "nesl/parser.hpp"
#include "nesl/lexer.hpp"
#include "nesl/pipeline.hpp"
#include "nesl/reference.hpp"
#include "nesl/repl.hpp"
#include "nesl/result_types.hpp"
#include "nesl/session.hpp"
#include "run_limits.hpp"
#include "vcode/printer.hpp"

namespace po = boost::program_options;

namespace {

// "a, b or c"
std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

// The passes' names, from the pipeline's own list: "parse, typecheck, ... or lower".
std::string pass_names() {
  std::vector<std::string> names;
  for (const nesl::PassInfo& pass : nesl::compiler_passes()) names.emplace_back(pass.name);
  return listed(names);
}

std::string usage() {
  return "usage: nesl [--backend NAME] [--threads N] [-O] [--arg-check on|off] [--max-memory SIZE]\n"
    "            [--max-call-depth N] [--sandbox] [FILE.nesl | -]\n"
    "       nesl [--check | --type | --vcode [-O] [-o OUT] [--source-map MAP] | --dump-after PASS]\n"
    "            [--arg-check on|off] [--basis FILE] FILE.nesl|-\n"
    "       nesl --describe NAME | --library-reference\n"
    "  FILE.nesl          run each top-level form in this process, printing what the classic\n"
    "                     REPL prints; with no file, an interactive session (exit; to leave)\n"
    "  -                  read the program from standard input instead of a file\n"
    "  --backend NAME     the VM's vector library, as vinterp's (default cpu)\n"
    "  --threads N        CPU threads (default 0: all cores; 1: sequential, exact)\n"
    "  -O, --optimize     run through fcode-opt's pipeline first, as vinterp -O; with --vcode,\n"
    "                     write the FCODE fcode-opt writes for the program\n"
    "  --max-memory SIZE  vector memory limit, as vinterp's: bytes, or with K, M, G, T\n"
    "  --max-call-depth N a call N frames deep is a runtime error (default 1000000)\n"
    "  --sandbox          shell_command and file I/O are runtime errors (for programs you did\n"
    "                     not write); reading standard input still works\n"
    "  --check            parse and type-check; one line per top-level form\n"
    "  --type             print the program's type (the tuple of its top-level expressions)\n"
    "  --vcode            compile to VCODE, written to OUT (default: standard output), ending\n"
    "                     with a comment of the results' NESL types, which vinterp reads to\n"
    "                     print them as NESL values\n"
    "  -o, --output OUT   with --vcode, the file the VCODE is written to\n"
    "  --source-map MAP   with --vcode, also write where each VCODE line came from in the\n"
    "                     source: lines `VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE`\n"
    "  --dump-after PASS  print the program after PASS: " + pass_names() + "\n"
    "  --arg-check off    leave out the runtime argument checks (the classic's set arg_check off)\n"
    "  --basis FILE       read the built-ins' signatures from FILE instead of the embedded ones\n"
    "  --time-passes      with --vcode, print each pass's time on standard error\n"
    "  --describe NAME    print a built-in's type and meaning, as the session's describe NAME;\n"
    "  --library-reference  print every built-in's entry as Markdown (doc/library.md)\n"
    "  --version          print the version and this build's backends\n"
    "  -h, --help         print this text\n";
}

// A bad command line: the message, then (when asked) the usage text, and exit status 2.
struct UsageError : std::runtime_error {
  UsageError(const std::string& message, bool with_usage = false)
      : std::runtime_error(message), with_usage(with_usage) {}
  bool with_usage;
};

po::variables_map parse_command_line(int argc, char** argv) {
  po::options_description options;
  options.add_options()("help,h", "")("version", "")("check", "")("type", "")("vcode", "")(
      "output,o", po::value<std::string>(), "")("source-map", po::value<std::string>(), "")(
      "time-passes", "")("arg-check", po::value<std::string>(), "")(
      "dump-after", po::value<std::string>(), "")("basis", po::value<std::string>(), "")(
      "describe", po::value<std::string>(), "")("library-reference", "")(
      "backend", po::value<std::string>()->default_value("cpu"), "")(
      "threads", po::value<int>()->default_value(0), "")("optimize,O", "")(
      "max-memory", po::value<std::string>(), "")("max-call-depth", po::value<long long>(), "")(
      "sandbox", "")("file", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what(), true);
  }
  return vm;
}

// What the command line asks for, checked.
struct Request {
  int modes = 0;  // how many of --check, --type, --vcode, --dump-after, --describe, --library-reference
  bool reference = false;  // --describe or --library-reference
  std::string file;  // "" for a session, "-" for standard input
  std::string dump_after;
  bool argument_checks = true;
  nesl::VmSettings vm;
};

Request checked_request(const po::variables_map& vm) {
  Request request;
  request.modes = static_cast<int>(vm.count("check") + vm.count("type") + vm.count("dump-after") +
                                   vm.count("vcode") + vm.count("describe") + vm.count("library-reference"));
  if (request.modes > 1)
    throw UsageError("expected at most one of --check, --type, --vcode, --dump-after, --describe, --library-reference", true);
  request.reference = vm.count("describe") || vm.count("library-reference");
  const std::vector<std::string> files =
      vm.count("file") ? vm["file"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (request.reference && !files.empty()) throw UsageError("--describe and --library-reference take no input file", true);
  if (files.size() > 1 || (request.modes == 1 && files.empty() && !request.reference))
    throw UsageError("expected one input file", true);
  if (!files.empty()) request.file = files.front();
  if (vm["threads"].as<int>() < 0) throw UsageError("--threads must be 0 (all cores) or more");
  request.dump_after = vm.count("dump-after") ? vm["dump-after"].as<std::string>() : "";
  if (!request.dump_after.empty() && !nesl::is_compiler_pass(request.dump_after)) {
    std::string names;
    for (const nesl::PassInfo& pass : nesl::compiler_passes()) (names += " ") += pass.name;
    throw UsageError("--dump-after expects one of" + names + ", not '" + request.dump_after + "'");
  }
  if ((vm.count("output") || vm.count("source-map") || vm.count("time-passes")) && !vm.count("vcode"))
    throw UsageError("-o, --source-map and --time-passes go with --vcode", true);
  if (vm.count("optimize") && request.modes == 1 && !vm.count("vcode"))
    throw UsageError("-O goes with running a program or with --vcode", true);
  if (vm.count("optimize") && vm.count("source-map"))
    throw UsageError("--source-map names lines of the VCODE, which -O replaces by FCODE: give one of them");
  const std::string arg_check = vm.count("arg-check") ? vm["arg-check"].as<std::string>() : "on";
  if (arg_check != "on" && arg_check != "off")
    throw UsageError("--arg-check expects on or off, not '" + arg_check + "'");
  request.argument_checks = arg_check == "on";
  request.vm.backend = vm["backend"].as<std::string>();
  const std::vector<std::string> backends = cvl::available_backends();
  if (std::find(backends.begin(), backends.end(), request.vm.backend) == backends.end())
    throw UsageError("--backend expects " + listed(backends) + ", not '" + request.vm.backend + "'");
  request.vm.threads = vm["threads"].as<int>();
  request.vm.optimize = vm.count("optimize") > 0;
  request.vm.sandbox = vm.count("sandbox") > 0;
  try {
    if (vm.count("max-memory")) request.vm.max_memory = vinterp::parse_memory_size(vm["max-memory"].as<std::string>());
    if (vm.count("max-call-depth"))
      request.vm.max_call_depth = vinterp::checked_call_depth(vm["max-call-depth"].as<long long>());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return request;
}

// The program's text: the file, or standard input for `-`.
std::shared_ptr<nesl::SourceFile> read_program(const std::string& file) {
  if (file != "-") return nesl::read_source_file(file);
  std::ostringstream text;
  text << std::cin.rdbuf();
  return std::make_shared<nesl::SourceFile>("stdin", text.str());
}

void print_version() {
  std::cout << "nesl " << NESL_VERSION << " (backends:";
  for (const std::string& name : cvl::available_backends()) std::cout << " " << name;
  std::cout << ")\n";
}

// --describe NAME (a name) or --library-reference (none).
int reference(const nesl::Basis& basis, const std::string& name) {
  if (name.empty()) {
    std::cout << nesl::library_reference(basis);
    return 0;
  }
  if (const auto description = nesl::describe_builtin(basis, nesl::lowercase(name))) {
    std::cout << *description;
    return 0;
  }
  if (const auto description = nesl::describe_syntax(nesl::lowercase(name))) {
    std::cout << *description;
    return 0;
  }
  std::cerr << "nesl: " << nesl::unknown_name_message(nesl::lowercase(name), basis.declared) << "\n";
  return 1;
}

// Runs the file, or a session without one; its backend is made first, so that one that cannot
// start is said once, before anything runs.
int run_program(const Request& request, std::shared_ptr<const nesl::Basis> basis) {
  nesl::SessionSettings settings;
  settings.vm = request.vm;
  settings.argument_checks = request.argument_checks;
  nesl::Session session(std::move(basis), settings, std::cout, std::cerr);
  if (const std::string problem = session.start_backend(); !problem.empty()) {
    std::cerr << "nesl: " << problem << "\n";
    return 1;
  }
  if (request.file.empty()) return nesl::run_repl(session);
  return session.run(nesl::parse_program(read_program(request.file))) ? 0 : 1;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out) return true;
  std::cerr << "nesl: cannot write " << path << "\n";
  return false;
}

// --check, --type, --vcode and --dump-after.
int compile_program(const po::variables_map& vm, const Request& request,
                    std::shared_ptr<const nesl::Basis> basis) {
  const bool compiling = vm.count("vcode") || !request.dump_after.empty();
  nesl::CompileOptions options;
  options.argument_checks = request.argument_checks;
  options.dump_after = request.dump_after;
  options.dump = &std::cout;
  options.timings = vm.count("time-passes") ? &std::cerr : nullptr;
  // The classic's `dump vcode` writes a program after loading the file: each top-level binding
  // ran then, once, and the program holds its value. So do they here, in this process.
  options.evaluate_globals = [&](nesl::Program program) {
    return nesl::evaluate_globals(std::move(program), basis, request.argument_checks, request.vm, std::cerr);
  };
  nesl::SourceMap source_map;
  if (vm.count("source-map")) options.source_map = &source_map;
  const std::string last = !request.dump_after.empty() ? request.dump_after : compiling ? "lower" : "typecheck";
  nesl::Compilation compiled = nesl::compile_until(last, read_program(request.file), *basis, options);
  if (!request.dump_after.empty()) return 0;
  if (vm.count("vcode")) {
    if (request.vm.optimize) {
      try {
        nesl::optimize_vcode(compiled.vcode.program);
      } catch (const std::exception& e) {
        std::cerr << "nesl: -O: " << e.what() << "\n";
        return 1;
      }
    }
    // The results' types last, so that the source map's line numbers stay the VCODE's.
    const std::string vcode =
        vcode::print_program(compiled.vcode.program) +
        nesl::result_types_comment({compiled.checked.expressions, compiled.checked.datatype_constructors});
    if (vm.count("output")) {
      if (!write_file(vm["output"].as<std::string>(), vcode)) return 1;
    } else {
      std::cout << vcode;
    }
    if (vm.count("source-map") && !write_file(vm["source-map"].as<std::string>(), source_map.text())) return 1;
    return 0;
  }
  const nesl::CheckedProgram& checked = compiled.checked;
  if (vm.count("type")) {
    std::cout << nesl::program_type(checked) << "\n";
  } else {
    for (const nesl::FormType& form : checked.forms) std::cout << nesl::describe_form(form) << "\n";
  }
  return 0;
}

int run(int argc, char** argv) {
  po::variables_map vm;
  Request request;
  try {
    vm = parse_command_line(argc, argv);
    if (vm.count("help")) {
      std::cout << usage();
      return 0;
    }
    if (vm.count("version")) {
      print_version();
      return 0;
    }
    request = checked_request(vm);
  } catch (const UsageError& e) {
    std::cerr << "nesl: " << e.what() << "\n" << (e.with_usage ? usage() : "");
    return 2;
  }
  try {
    // The built-ins' signatures: --basis FILE, else the ones compiled in.
    auto basis = std::make_shared<const nesl::Basis>(
        vm.count("basis") ? nesl::parse_basis(nesl::read_source_file(vm["basis"].as<std::string>()))
                          : nesl::load_embedded_basis());
    if (request.reference) return reference(*basis, vm.count("describe") ? vm["describe"].as<std::string>() : "");
    if (request.modes == 0) return run_program(request, std::move(basis));
    return compile_program(vm, request, std::move(basis));
  } catch (const nesl::CompileError& error) {
    std::cerr << nesl::format_diagnostic(error);
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  return nesl::run_with_stack(nesl::kCompilerStackBytes, [&] { return run(argc, argv); });
}
