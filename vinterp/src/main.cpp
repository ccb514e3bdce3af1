// vinterp: runs a VCODE program, a drop-in for the classic interpreter's command line
// (spec/VCODE.md §10) plus long options of our own.
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <iostream>
#include <string>
#include <vector>

#include "../src/vm/machine.hpp"
#include "allocator_policy.hpp"
#include "cvl/registry.hpp"
#include "vcode/lexer.hpp"
#include "vcode/parser.hpp"
#include "vcode/superop_print.hpp"

namespace po = boost::program_options;

namespace {

const char* const usage_text =
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
    "Long options:\n"
    "\t --backend NAME\t\t the vector library (default cpu; --version lists this build's)\n"
    "\t --threads N\t\t CPU threads (default: all cores; 1 = sequential, exact)\n"
    "\t --float-rank correct|legacy\t FLOAT RANK order (legacy = the x86-64 reference's)\n"
    "\t --trace\t\t print each instruction and the stack's shape on stderr\n"
    "\t --profile\t\t per-opcode counts and times on stderr at the end\n"
    "\t --sync\t\t\t GPU backends: wait for the device after every operation (faults name their op)\n"
    "\t --host-threshold N\t GPU backends: ops whose inputs are on the host and at most N elements\n"
    "\t\t\t\t run on the host (0 = everything on the device; default: the backend's)\n"
    "\t --help, --version\n";

int usage_error(const std::string& message = "") {
  if (!message.empty()) std::fprintf(stderr, "vinterp: %s\n", message.c_str());
  std::fputs(usage_text, stderr);
  return 1;
}

bool apply_debug_switch(const std::string& name, vm::DebugSwitches& d, bool& lex, bool& link, bool& program) {
  if (name == "abort") d.abort = true;
  else if (name == "lex") lex = true;
  else if (name == "link") link = true;
  else if (name == "program") program = true;
  else if (name == "runtime") d.runtime = true;
  else if (name == "command") d.command = true;
  else if (name == "stack") d.stack = true;
  else if (name == "values") d.values = true;
  else if (name == "heap") {}
  else return false;
  return true;
}

void list_program(const vcode::Program& program) {
  for (const auto& superop : program.superops)  // FCODE: the definitions FUSED n refers to
    std::fprintf(stderr, "%s\n", vcode::superop_text(superop).c_str());
  for (std::size_t i = 0; i < program.code.size(); ++i) {
    const auto& ins = program.code[i];
    std::fprintf(stderr, "(%zu) vop = %s; line = %d", i, vcode::instruction_text(program, ins).c_str(),
                 ins.where.line);
    if (ins.target != vcode::no_target) std::fprintf(stderr, "; branch to %u", ins.target);
    std::fputc('\n', stderr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  vinterp::keep_freed_memory_for_reuse();  // the whole process's choice (allocator_policy.hpp)
  po::options_description visible;
  visible.add_options()
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
      ("profile", "")
      ("sync", "")
      ("host-threshold", po::value<long long>(), "")
      ("file", po::value<std::vector<std::string>>(), "");
  for (char digit = '0'; digit <= '9'; ++digit) visible.add_options()((std::string(",") + digit).c_str(), "");
  po::positional_options_description positional;
  positional.add("file", -1);

  po::variables_map args;
  int device = 0;  // the last -<digit>, as getopt would have it
  try {
    auto parsed = po::command_line_parser(argc, argv).options(visible).positional(positional).run();
    for (const auto& option : parsed.options)
      if (const auto& key = option.string_key;
          key.size() == 2 && key[0] == '-' && std::isdigit(static_cast<unsigned char>(key[1])))
        device = key[1] - '0';
    po::store(parsed, args);
    po::notify(args);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (args.count("help")) {
    std::fputs(usage_text, stdout);
    return 0;
  }
  if (args.count("version")) {
    std::printf("vinterp %s (backends:", NESL_VERSION);
    for (const auto& name : cvl::available_backends()) std::printf(" %s", name.c_str());
    std::printf(")\n");
    return 0;
  }
  if (args.count("-r")) return usage_error("-r is not implemented (as in the classic interpreter)");
  auto files = args.count("file") ? args["file"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 1) {
    std::fprintf(stderr, "vinterp: Please supply file name.\n");
    return usage_error();
  }

  vm::MachineOptions options;
  options.time_program = args.count("-t") > 0;
  options.trace = args.count("trace") > 0;
  options.profile = args.count("profile") > 0;
  bool lex = false, link = false, list = false;
  if (args.count("-d"))
    for (const auto& name : args["-d"].as<std::vector<std::string>>())
      if (!apply_debug_switch(name, options.debug, lex, link, list))
        return usage_error("unknown debug switch -d " + name);

  cvl::BackendOptions backend_options;
  backend_options.threads = args["threads"].as<int>();
  if (backend_options.threads < 0) return usage_error("--threads must be 0 (all cores) or more");
  backend_options.device = device;
  backend_options.sync_each_op = args.count("sync") > 0;
  if (args.count("host-threshold")) {
    backend_options.host_threshold = args["host-threshold"].as<long long>();
    if (backend_options.host_threshold < 0) return usage_error("--host-threshold must be 0 or more");
  }
  const std::string rank = args["float-rank"].as<std::string>();
  if (rank == "legacy") backend_options.float_rank = cvl::FloatRankOrder::Legacy;
  else if (rank != "correct") return usage_error("--float-rank must be correct or legacy");

  const std::string& file = files.front();
  std::vector<std::string> warnings;
  vcode::Program program;
  try {
    program = vcode::load_program(file, {&warnings});
  } catch (const vcode::LoadError& e) {
    for (const auto& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
    std::fprintf(stderr, "%s\nParse failure\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vinterp: %s\n", e.what());
    return 1;
  }
  for (const auto& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
  if (lex) {  // the classic prints every token's text on stdout
    std::ifstream in(file, std::ios::binary);
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<vcode::Diagnostic> ignored;
    for (const auto& token : vcode::tokenize(source, ignored))
      if (token.kind != vcode::TokenKind::End) std::printf("%.*s\n", int(token.text.size()), token.text.data());
  }
  if (link)
    for (const auto& ins : program.code)
      if (ins.op == vcode::Op::Call) std::fprintf(stderr, "vinterp: linker: linking %s\n", ins.callee.c_str());
  if (list) list_program(program);

  std::unique_ptr<cvl::Backend> backend;
  try {  // a GPU backend on a machine without a usable GPU: "no CUDA device: ..."
    backend = cvl::make_backend(args["backend"].as<std::string>(), backend_options);
  } catch (...) {
    std::fprintf(stderr, "%s\n", vm::failure_line(vm::current_failure(), "").c_str());
    return 1;
  }
  if (!backend) {
    std::string names;
    for (const auto& name : cvl::available_backends()) names += " " + name;
    std::fprintf(stderr, "vinterp: backend '%s' is not available in this build (available:%s)\n",
                 args["backend"].as<std::string>().c_str(), names.c_str());
    return 1;
  }
  try {
    vm::Machine machine(program, *backend, options);
    return machine.run();
  } catch (...) {  // failures while preparing constants name the file
    std::fprintf(stderr, "%s\n", vm::failure_line(vm::current_failure(), file).c_str());
    return 1;
  }
}
