// The nesl program: parses and type-checks a NESL file and prints what the options ask for.
#include <boost/program_options.hpp>
#include <iostream>

#include "nesl/basis.hpp"
#include "nesl/checker.hpp"
#include "nesl/diagnostics.hpp"
#include "nesl/parser.hpp"
#include "nesl/printer.hpp"

namespace po = boost::program_options;

namespace {

constexpr const char* usage =
    "usage: nesl [--check | --type | --dump-after PASS] [--basis FILE] FILE.nesl\n"
    "  --check            parse and type-check; one line per top-level form\n"
    "  --type             print the program's type (the tuple of its top-level expressions)\n"
    "  --dump-after PASS  print the program after PASS (parse: as NESL source)\n"
    "  --basis FILE       read the built-ins' signatures from FILE instead of the embedded ones\n";

int run(int argc, char** argv) {
  po::options_description options;
  options.add_options()("help,h", "")("check", "")("type", "")(
      "dump-after", po::value<std::string>(), "")("basis", po::value<std::string>(), "")(
      "file", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "nesl: " << e.what() << "\n" << usage;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << usage;
    return 0;
  }
  if (!vm.count("file") || vm["file"].as<std::vector<std::string>>().size() != 1) {
    std::cerr << "nesl: expected one input file\n" << usage;
    return 2;
  }
  int modes = static_cast<int>(vm.count("check") + vm.count("type") + vm.count("dump-after"));
  if (modes > 1) {
    std::cerr << "nesl: expected at most one of --check, --type, --dump-after\n" << usage;
    return 2;
  }
  std::string dump_after = vm.count("dump-after") ? vm["dump-after"].as<std::string>() : "";
  if (!dump_after.empty() && dump_after != "parse") {
    std::cerr << "nesl: --dump-after knows only the pass 'parse' so far, not '" << dump_after << "'\n";
    return 2;
  }
  try {
    nesl::Program program =
        nesl::parse_program(nesl::read_source_file(vm["file"].as<std::vector<std::string>>()[0]));
    if (dump_after == "parse") {
      std::cout << nesl::print_program(program);
      return 0;
    }
    nesl::Basis basis = vm.count("basis")
                            ? nesl::parse_basis(nesl::read_source_file(vm["basis"].as<std::string>()))
                            : nesl::load_embedded_basis();
    nesl::CheckedProgram checked = nesl::check_program(program, basis);
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

int main(int argc, char** argv) { return run(argc, argv); }
