// fcode-opt: reads VCODE, optimizes it (inlining, cleanup, fusion into superoperators) and
// writes FCODE that vinterp runs on any backend.
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fopt/pipeline.hpp"
#include "fopt/stats.hpp"
#include "vcode/parser.hpp"
#include "vcode/printer.hpp"
#include "cvl_cuda/superop_cuda.hpp"

namespace po = boost::program_options;

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ','))
    if (!name.empty() && name != "none") names.push_back(name);
  return names;
}

// The passes as --help lists them, from the pipeline's table.
std::string passes_help() {
  std::string names, defaults;
  for (const auto& pass : fopt::registered_passes()) names += "  " + std::string(pass.name) + "\n";
  for (const std::string& name : fopt::default_passes()) defaults += (defaults.empty() ? "" : ",") + name;
  return "\npasses (--list-passes says what each does):\n" + names + "default: --passes " + defaults + "\n";
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description visible("usage: fcode-opt IN.vcode [-o OUT.fcode] [options]");
  visible.add_options()("help,h", "this text")("output,o", po::value<std::string>(),
                                               "the FCODE file to write (default: stdout)")(
      "emit-cuda", po::value<std::string>(), "also write the CUDA source of the superoperators")(
      "passes", po::value<std::string>(),
      "comma-separated passes between lift and lower (listed below; \"none\" for none)")(
      "dump-after", po::value<std::string>(),
                            "print the IR after PASS (lift, ..., lower, or all) on stderr")(
      "stats", "print static counts, superoperators and unoptimized functions on stderr")(
      "inline-limit", po::value<std::size_t>(),
      "inline callees up to this many statements (default 400)")(
      "fuse-duplicate-limit", po::value<std::size_t>(),
      "recompute a value of up to this many superoperator nodes in each of its users instead "
      "of storing it, where that reads at most one more vector (default 8)")(
      "verify-ir", "verify the IR after every pass (always on in debug builds)")(
      "list-passes", "list the passes and what they do");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const std::exception& error) {
    std::cerr << "fcode-opt: " << error.what() << '\n' << visible;
    return 1;
  }
  if (vm.count("help")) {
    std::cout << visible << passes_help();
    return 0;
  }
  if (vm.count("list-passes")) {
    std::cout << "lift: stack code to let-bound variables (always first)\n";
    for (const auto& pass : fopt::registered_passes())
      std::cout << pass.name << ": " << pass.description << '\n';
    std::cout << "lower: back to stack code with few stack moves (always last)\n";
    return 0;
  }
  if (!vm.count("input")) {
    std::cerr << "fcode-opt: no input file\n" << visible;
    return 1;
  }
  fopt::PipelineOptions options;
  if (vm.count("passes")) options.passes = split_list(vm["passes"].as<std::string>());
  if (vm.count("dump-after")) {
    options.dump_after = vm["dump-after"].as<std::string>();
    options.dump = &std::cerr;
  }
  options.verify = vm.count("verify-ir") > 0;
  if (vm.count("inline-limit"))
    options.pass_options.inline_size_limit = vm["inline-limit"].as<std::size_t>();
  if (vm.count("fuse-duplicate-limit"))
    options.pass_options.fuse_duplicate_limit = vm["fuse-duplicate-limit"].as<std::size_t>();
  try {
    fopt::check_options(options);  // before reading the input: a misspelt name fails at once
  } catch (const std::exception& error) {
    std::cerr << "fcode-opt: " << error.what() << '\n';
    return 1;
  }
  const std::string input = vm["input"].as<std::string>();
  vcode::Program program;
  try {
    program = vcode::load_program(input);
  } catch (const vcode::LoadError& error) {
    const std::string text = error.what();  // as vinterp prints it
    std::cerr << text << (text.ends_with('\n') ? "" : "\n") << "Parse failure\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "fcode-opt: " << error.what() << '\n';
    return 1;
  }
  fopt::PipelineResult result;
  try {
    result = fopt::optimize(program, options);
  } catch (const std::exception& error) {
    std::cerr << "fcode-opt: " << input << ": " << error.what() << '\n';
    return 1;
  }
  const std::string text = vcode::print_program(result.program);
  if (vm.count("output")) {
    if (!write_file(vm["output"].as<std::string>(), text)) {
      std::cerr << "fcode-opt: cannot write " << vm["output"].as<std::string>() << '\n';
      return 1;
    }
  } else {
    std::cout << text;
  }
  if (vm.count("emit-cuda")) {
    const std::string path = vm["emit-cuda"].as<std::string>();
    if (!write_file(path, vcode::cuda_program_source(result.program.superops))) {
      std::cerr << "fcode-opt: cannot write " << path << '\n';
      return 1;
    }
  }
  if (vm.count("stats")) fopt::print_stats(std::cerr, program, result.program, result.module);
  return 0;
}
