// How vinterp reports each kind of failure: a data error in the classic format, an internal
// error as a bug in vinterp, a device error as a device failure; each names the instruction.
#include "vm/error_report.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

#include "cvl/errors.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "vcode/parser.hpp"
#include "vm/machine.hpp"

namespace {

template <class Exception>
vm::Failure failure_of(Exception exception) {
  try {
    throw exception;
  } catch (...) {
    return vm::current_failure();
  }
}

// What `run` writes on stderr (the machine prints its failures there).
template <class Run>
std::string stderr_of(Run run) {
  std::FILE* file = std::tmpfile();
  REQUIRE(file);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(fileno(file), STDERR_FILENO);
  run();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += char(c);
  std::fclose(file);
  return text;
}

struct RunResult {
  int status = 0;
  std::string err;
};

RunResult run_program(const vcode::Program& program) {
  auto backend = cvl::make_cpu_backend({1});
  RunResult result;
  result.err = stderr_of([&] {
    vm::Machine machine(program, *backend, {});
    result.status = machine.run();
  });
  return result;
}

vcode::Program parse(const std::string& text, const std::string& file) {
  std::vector<std::string> warnings;
  return vcode::parse_program(text, file, {&warnings});
}

const std::string where = "prog.vcode:12: in function DOTP_3, instruction + INT";

}  // namespace

TEST_CASE("a data error keeps the classic format", "[error_report]") {
  const vm::Failure data = failure_of(cvl::Error("division by zero"));
  CHECK(data.kind == vm::FailureKind::Data);
  CHECK(vm::failure_line(data, where) ==
        "vinterp: prog.vcode:12: in function DOTP_3, instruction + INT: division by zero");
  CHECK(failure_of(vm::RuntimeError("stack underflow")).kind == vm::FailureKind::Data);
  const vm::Failure memory = failure_of(std::bad_alloc());
  CHECK(memory.kind == vm::FailureKind::Data);
  CHECK(memory.message == "ran out of memory");
}

TEST_CASE("an internal error says it is a bug in vinterp", "[error_report]") {
  const vm::Failure bug =
      failure_of(cvl::InternalError("EXTRACT: vector has length 3, expected 4"));
  CHECK(bug.kind == vm::FailureKind::Internal);
  CHECK(vm::failure_line(bug, where) ==
        "vinterp: internal error (a bug in vinterp, not in the program): prog.vcode:12: in "
        "function DOTP_3, instruction + INT: EXTRACT: vector has length 3, expected 4");
  // An exception no kind claims breaks the backend contract: a bug too.
  const vm::Failure stray = failure_of(std::out_of_range("vector::at"));
  CHECK(stray.kind == vm::FailureKind::Internal);
  CHECK(stray.message == "unexpected exception: vector::at");
  CHECK(failure_of(42).kind == vm::FailureKind::Internal);
}

TEST_CASE("a device error says it is a device failure", "[error_report]") {
  const vm::Failure device =
      failure_of(cvl::DeviceError("out of device memory: 8 bytes requested"));
  CHECK(device.kind == vm::FailureKind::Device);
  CHECK(vm::failure_line(device, where) ==
        "vinterp: device failure: prog.vcode:12: in function DOTP_3, instruction + INT: out of "
        "device memory: 8 bytes requested");
  // Before the program runs there is no instruction to name (no CUDA device at all).
  CHECK(vm::failure_line(failure_of(cvl::DeviceError("no CUDA device: none")), "") ==
        "vinterp: device failure: no CUDA device: none");
}

TEST_CASE("the machine prints a data error naming the instruction and exits 1",
          "[error_report][vm]") {
  const auto program =
      parse("FUNC MAIN1\nCONST INT 7\nCONST INT 0\n/ INT\nRET\n", "div.vcode");
  const RunResult result = run_program(program);
  CHECK(result.status == 1);
  CHECK(result.err ==
        "vinterp: div.vcode:4: in function MAIN1, instruction / INT: division by zero\n");
}

TEST_CASE("the machine prints a broken invariant as a bug in vinterp and exits 1",
          "[error_report][vm]") {
  auto program = parse(
      "SUPEROP 0 (INT INT) (+ INT $0 $1)\nFUNC MAIN\nCONST INT (1 2)\nCONST INT (3 4)\n"
      "FUSED 0\nRET\n",
      "fused.fcode");
  // A definition the loader would have refused: no operand fixes the length of the result.
  REQUIRE(program.superops.size() == 1);
  vcode::SuperOp& op = program.superops[0];
  vcode::SuperOpNode constant;
  constant.kind = vcode::SuperOpNode::Kind::Constant;
  constant.result = vcode::TypeKeyword::Int;
  constant.int_value = 5;
  op.nodes = {constant};
  const RunResult result = run_program(program);
  CHECK(result.status == 1);
  CHECK(result.err ==
        "vinterp: internal error (a bug in vinterp, not in the program): fused.fcode:5: in "
        "function MAIN, instruction FUSED 0: FUSED 0: no operand fixes the length\n");
}
