// The nesl program: runs a NESL file or an interactive session in this process, or compiles a
// file and prints what the options ask for.
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <memory>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/eval_globals.hpp"
#include "nesl/large_stack.hpp"
#include "nesl/parser.hpp"
#include "nesl/pipeline.hpp"
#include "nesl/repl.hpp"
#include "nesl/session.hpp"
#include "vcode/printer.hpp"

namespace po = boost::program_options;

namespace {

// The passes' names, from the pipeline's own list: "parse, typecheck, ... or lower".
std::string pass_names() {
  std::string names;
  const auto passes = nesl::compiler_passes();
  for (std::size_t i = 0; i < passes.size(); ++i) {
    names += i == 0 ? "" : i + 1 == passes.size() ? " or " : ", ";
    names += passes[i].name;
  }
  return names;
}

std::string usage() {
  return "usage: nesl [--backend NAME] [--threads N] [-O] [--arg-check on|off] [FILE.nesl]\n"
    "       nesl [--check | --type | --vcode [-o OUT] [--source-map MAP] | --dump-after PASS]\n"
    "            [--arg-check on|off] [--basis FILE] FILE.nesl\n"
    "  FILE.nesl          run each top-level form in this process, printing what the classic\n"
    "                     REPL prints; with no file, an interactive session (exit; to leave)\n"
    "  --backend NAME     the VM's vector library, as vinterp's (default cpu)\n"
    "  --threads N        CPU threads (default 0: all cores; 1: sequential, exact)\n"
    "  -O, --optimize     run through fcode-opt's pipeline first, as vinterp -O\n"
    "  --check            parse and type-check; one line per top-level form\n"
    "  --type             print the program's type (the tuple of its top-level expressions)\n"
    "  --vcode            compile to VCODE, written to OUT (default: standard output)\n"
    "  -o, --output OUT   with --vcode, the file the VCODE is written to\n"
    "  --source-map MAP   with --vcode, also write where each VCODE line came from in the\n"
    "                     source: lines `VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE`\n"
    "  --dump-after PASS  print the program after PASS: " + pass_names() + "\n"
    "  --arg-check off    leave out the runtime argument checks (the classic's set arg_check off)\n"
    "  --basis FILE       read the built-ins' signatures from FILE instead of the embedded ones\n"
    "  --time-passes      with --vcode, print each pass's time on standard error\n"
    "  -h, --help         print this text\n";
}

int run(int argc, char** argv) {
  po::options_description options;
  options.add_options()("help,h", "")("check", "")("type", "")("vcode", "")(
      "output,o", po::value<std::string>(), "")("source-map", po::value<std::string>(), "")("time-passes", "")("arg-check", po::value<std::string>(), "")(
      "dump-after", po::value<std::string>(), "")("basis", po::value<std::string>(), "")(
      "backend", po::value<std::string>()->default_value("cpu"), "")(
      "threads", po::value<int>()->default_value(0), "")("optimize,O", "")(
      "file", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "nesl: " << e.what() << "\n" << usage();
    return 2;
  }
  if (vm.count("help")) {
    std::cout << usage();
    return 0;
  }
  int modes = static_cast<int>(vm.count("check") + vm.count("type") + vm.count("dump-after") +
                               vm.count("vcode"));
  if (modes > 1) {
    std::cerr << "nesl: expected at most one of --check, --type, --vcode, --dump-after\n" << usage();
    return 2;
  }
  const std::size_t files = vm.count("file") ? vm["file"].as<std::vector<std::string>>().size() : 0;
  if (files > 1 || (modes == 1 && files == 0)) {
    std::cerr << "nesl: expected one input file\n" << usage();
    return 2;
  }
  if (vm["threads"].as<int>() < 0) {
    std::cerr << "nesl: --threads must be 0 (all cores) or more\n";
    return 2;
  }
  std::string dump_after = vm.count("dump-after") ? vm["dump-after"].as<std::string>() : "";
  if (!dump_after.empty() && !nesl::is_compiler_pass(dump_after)) {
    std::cerr << "nesl: --dump-after expects one of";
    for (const nesl::PassInfo& pass : nesl::compiler_passes()) std::cerr << " " << pass.name;
    std::cerr << ", not '" << dump_after << "'\n";
    return 2;
  }
  if ((vm.count("output") || vm.count("source-map") || vm.count("time-passes")) && !vm.count("vcode")) {
    std::cerr << "nesl: -o, --source-map and --time-passes go with --vcode\n" << usage();
    return 2;
  }
  std::string arg_check = vm.count("arg-check") ? vm["arg-check"].as<std::string>() : "on";
  if (arg_check != "on" && arg_check != "off") {
    std::cerr << "nesl: --arg-check expects on or off, not '" << arg_check << "'\n";
    return 2;
  }
  // The built-ins' signatures: --basis FILE, else the ones compiled in.
  const auto load_basis = [&] {
    return std::make_shared<const nesl::Basis>(
        vm.count("basis") ? nesl::parse_basis(nesl::read_source_file(vm["basis"].as<std::string>()))
                          : nesl::load_embedded_basis());
  };
  try {
    if (modes == 0) {  // run the file, or a session
      nesl::SessionSettings settings;
      settings.vm.backend = vm["backend"].as<std::string>();
      settings.vm.threads = vm["threads"].as<int>();
      settings.vm.optimize = vm.count("optimize") > 0;
      settings.argument_checks = arg_check == "on";
      nesl::Session session(load_basis(), settings, std::cout, std::cerr);
      if (files == 0) return nesl::run_repl(session);
      nesl::Program program =
          nesl::parse_program(nesl::read_source_file(vm["file"].as<std::vector<std::string>>()[0]));
      return session.run(std::move(program)) ? 0 : 1;
    }
    const auto file = vm["file"].as<std::vector<std::string>>()[0];
    const bool compiling = vm.count("vcode") || !dump_after.empty();
    const std::shared_ptr<const nesl::Basis> basis = load_basis();
    nesl::CompileOptions options;
    options.argument_checks = arg_check == "on";
    options.dump_after = dump_after;
    options.dump = &std::cout;
    options.timings = vm.count("time-passes") ? &std::cerr : nullptr;
    // The classic's `dump vcode` writes a program after loading the file: each top-level binding
    // ran then, once, and the program holds its value. So do they here, in this process.
    options.evaluate_globals = [&](nesl::Program program) {
      return nesl::evaluate_globals(std::move(program), basis, arg_check == "on", std::cerr);
    };
    nesl::SourceMap source_map;
    if (vm.count("source-map")) options.source_map = &source_map;
    const std::string last = !dump_after.empty() ? dump_after : compiling ? "lower" : "typecheck";
    nesl::Compilation compiled = nesl::compile_until(last, nesl::read_source_file(file), *basis, options);
    if (!dump_after.empty()) return 0;
    if (vm.count("vcode")) {
      const std::string vcode = vcode::print_program(compiled.vcode.program);
      if (vm.count("output")) {
        std::ofstream out(vm["output"].as<std::string>(), std::ios::binary);
        out << vcode;
        if (!out) {
          std::cerr << "nesl: cannot write " << vm["output"].as<std::string>() << "\n";
          return 1;
        }
      } else {
        std::cout << vcode;
      }
      if (vm.count("source-map")) {
        std::ofstream out(vm["source-map"].as<std::string>(), std::ios::binary);
        out << source_map.text();
        if (!out) {
          std::cerr << "nesl: cannot write " << vm["source-map"].as<std::string>() << "\n";
          return 1;
        }
      }
      return 0;
    }
    const nesl::CheckedProgram& checked = compiled.checked;
    if (vm.count("type")) {
      std::cout << nesl::program_type(checked) << "\n";
    } else {
      for (const nesl::FormType& form : checked.forms) std::cout << nesl::describe_form(form) << "\n";
    }
    return 0;
  } catch (const nesl::CompileError& error) {
    std::cerr << nesl::format_diagnostic(error);
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  return nesl::run_with_stack(nesl::kCompilerStackBytes, [&] { return run(argc, argv); });
}
