// A distributed run's effects happen once: a two-process run simulated in one process (cvl-cpu
// behind a backend that plays either process) checks that only the io root reads, writes, opens,
// spawns and prints, that the other process pushes the same values through the same backend
// calls, and that --profile gathers the messages of every process.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cvl_cpu/cvl_cpu.hpp"
#include "vcode/parser.hpp"
#include "cvl/errors.hpp"
#include "vm/machine.hpp"
#include "vm/shared_result.hpp"

namespace {

// cvl-cpu as one process of a two-process run: the io root records what it shares, the other
// process replays it. Both log every backend call with the data it moved, so that the test can
// compare them. With `count_messages`, every upload counts as one message of its bytes, and
// gather_counters answers for two processes that sent the same.
class SimulatedProcess final : public cvl::Backend, public cvl::DistributedIo {
 public:
  SimulatedProcess(bool root, std::vector<std::string>& shares, bool count_messages = false)
      : root_(root), count_messages_(count_messages), shares_(shares) {}

  std::vector<std::string> calls;
  std::size_t shares_replayed = 0;
  bool effect_ran_here = false;  // the other process was handed bytes to share

  cvl::DistributedIo* distributed_io() override { return this; }
  bool is_io_root() const override { return root_; }
  bool error_is_local() const override { return false; }
  void before_reporting_alone() override {}
  bool all_failed_alone() override { return false; }
  void abort_all(int) override {}
  void share_from_io_root(std::string& bytes) override {
    calls.push_back("share");
    if (root_) {
      shares_.push_back(bytes);
      return;
    }
    effect_ran_here = effect_ran_here || bytes != vm::SharedResult().bytes();
    REQUIRE(shares_replayed < shares_.size());
    bytes = shares_[shares_replayed++];
  }
  std::vector<std::uint64_t> gather_counters(std::span<const std::uint64_t> local) override {
    calls.push_back("gather");
    std::vector<std::uint64_t> all(local.begin(), local.end());
    all.insert(all.end(), local.begin(), local.end());
    return all;
  }

  std::string name() const override { return "simulated"; }
  cvl::Vector upload(cvl::Type type, const void* data, std::size_t length) override {
    const std::size_t bytes = length * cvl::element_size(type);
    log("upload", data, bytes);
    if (count_messages_) {
      ++messages_;
      message_bytes_ += bytes;
    }
    return cpu_->upload(type, data, length);
  }
  void download(const cvl::Vector& v, std::size_t first, std::size_t count, void* out) override {
    cpu_->download(v, first, count, out);
    log("download", out, count * cvl::element_size(v.type));
  }
  cvl::Vector elementwise(vcode::Op op, cvl::Type type, std::span<cvl::Vector> operands) override {
    calls.push_back("elementwise");
    return cpu_->elementwise(op, type, operands);
  }
  cvl::Vector random(cvl::Vector bounds, cvl::RandomStream& stream) override {
    calls.push_back("random");
    return cpu_->random(std::move(bounds), stream);
  }
  cvl::Vector scan(vcode::Op op, cvl::Vector v, const cvl::Segdes& sd) override {
    calls.push_back("scan");
    return cpu_->scan(op, std::move(v), sd);
  }
  cvl::Vector reduce(vcode::Op op, cvl::Vector v, const cvl::Segdes& sd) override {
    calls.push_back("reduce");
    return cpu_->reduce(op, std::move(v), sd);
  }
  cvl::Vector permute(vcode::Op op, cvl::PermuteOperands operands) override {
    calls.push_back("permute");
    return cpu_->permute(op, std::move(operands));
  }
  cvl::Vector extract(cvl::Vector v, cvl::Vector indices, const cvl::Segdes& sd) override {
    calls.push_back("extract");
    return cpu_->extract(std::move(v), std::move(indices), sd);
  }
  cvl::Vector replace(cvl::Vector v, cvl::Vector indices, cvl::Vector values,
                      const cvl::Segdes& sd) override {
    calls.push_back("replace");
    return cpu_->replace(std::move(v), std::move(indices), std::move(values), sd);
  }
  cvl::Vector distribute(cvl::Vector values, const cvl::Segdes& sd) override {
    calls.push_back("distribute");
    return cpu_->distribute(std::move(values), sd);
  }
  cvl::Vector index(cvl::Vector starts, cvl::Vector strides, const cvl::Segdes& sd) override {
    calls.push_back("index");
    return cpu_->index(std::move(starts), std::move(strides), sd);
  }
  cvl::Vector rank(vcode::Op op, cvl::Vector v, const cvl::Segdes& sd) override {
    calls.push_back("rank");
    return cpu_->rank(op, std::move(v), sd);
  }
  std::pair<cvl::Vector, cvl::Segdes> pack(cvl::Vector v, cvl::Vector flags,
                                           const cvl::Segdes& sd) override {
    calls.push_back("pack");
    return cpu_->pack(std::move(v), std::move(flags), sd);
  }
  cvl::Segdes make_segdes(cvl::Vector lengths) override {
    calls.push_back("make_segdes");
    return cpu_->make_segdes(std::move(lengths));
  }
  cvl::Vector segment_lengths(const cvl::Segdes& sd) override {
    calls.push_back("segment_lengths");
    return cpu_->segment_lengths(sd);
  }
  std::unique_ptr<cvl::PreparedSuperOp> prepare(const vcode::SuperOp& op) override {
    calls.push_back("prepare");
    return cpu_->prepare(op);
  }
  using Backend::fused;
  cvl::Vector fused(const cvl::PreparedSuperOp& op, std::span<cvl::FusedOperand> operands,
                    const cvl::Length& domain) override {
    calls.push_back("fused");
    return cpu_->fused(op, operands, domain);
  }
  void wait_for_device() override { calls.push_back("wait_for_device"); }
  cvl::BackendStats stats() const override {
    cvl::BackendStats stats = cpu_->stats();
    stats.messages_sent = messages_;
    stats.bytes_sent = message_bytes_;
    return stats;
  }

 private:
  void log(const char* call, const void* data, std::size_t bytes) {
    calls.push_back(std::string(call) + " " +
                    std::string(static_cast<const char*>(data), static_cast<const char*>(data) + bytes));
  }

  std::unique_ptr<cvl::Backend> cpu_ = cvl::make_cpu_backend({1});
  bool root_;
  bool count_messages_;
  std::vector<std::string>& shares_;
  std::uint64_t messages_ = 0;
  std::uint64_t message_bytes_ = 0;
};

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What one run of the machine wrote on stdout and stderr, and its status.
struct Run {
  int status = -1;
  std::string out, err;
};

Run run_machine(const vcode::Program& program, cvl::Backend& backend, vm::MachineOptions options) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  REQUIRE(out);
  REQUIRE(err);
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
  dup2(fileno(out), STDOUT_FILENO);
  dup2(fileno(err), STDERR_FILENO);
  Run run;
  {
    vm::Machine machine(program, backend, options);
    run.status = machine.run();
  }  // the machine closes the streams it left open
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, STDOUT_FILENO);
  dup2(saved_err, STDERR_FILENO);
  close(saved_out);
  close(saved_err);
  for (auto [file, text] : {std::pair{out, &run.out}, std::pair{err, &run.err}}) {
    std::rewind(file);
    for (int c; (c = std::fgetc(file)) != EOF;) *text += char(c);
    std::fclose(file);
  }
  return run;
}

vcode::Program parse(const std::string& text) {
  std::vector<std::string> warnings;
  return vcode::parse_program(text, "io_root.vcode", {&warnings});
}

// Spawns `true` on two new pipes (streams 3 and 4, so that each file below is stream 5); reads
// INT, FLOAT, BOOL, SEGDES and the rest of the text from `input`; writes everything it read to
// `output`; WRITEs to stderr; writes to a stream that is not open; fails to open a missing file;
// times nothing. The streams SPAWN gave, what was read and the last statuses and time stay on
// the stack for the final dump.
std::string io_program(const std::string& input, const std::string& output) {
  return R"({ stream -> the same stream, a value read below it }
FUNC READ_INT
COPY 1 0
FREAD INT
POP 2 0
CPOP 1 1
RET
FUNC READ_FLOAT
COPY 1 0
FREAD FLOAT
POP 2 0
CPOP 1 1
RET
FUNC READ_BOOL
COPY 1 0
FREAD BOOL
POP 2 0
CPOP 1 1
RET
FUNC READ_SEGDES
COPY 1 0
FREAD SEGDES
POP 2 0
CPOP 1 1
RET

FUNC MAIN
CONST CHAR "true"
CONST INT NULL_STREAM
CONST INT NULL_STREAM
CONST INT STDERR
SPAWN
POP 2 0
CONST CHAR ")" + input + R"("
CONST INT 1
FOPEN
POP 2 0
CALL READ_INT
CALL READ_FLOAT
CALL READ_BOOL
CALL READ_SEGDES
CONST INT ()
CONST INT -1
COPY 1 2
FREAD_CHAR
POP 2 0
POP 1 0
CPOP 1 1
FCLOSE
POP 2 0
CONST CHAR ")" + output + R"("
CONST INT 2
FOPEN
POP 2 0
COPY 1 5
COPY 1 1
FWRITE INT
POP 2 0
COPY 1 4
COPY 1 1
FWRITE FLOAT
POP 2 0
COPY 1 3
COPY 1 1
FWRITE BOOL
POP 2 0
COPY 1 2
COPY 1 1
FWRITE SEGDES
POP 2 0
COPY 1 1
COPY 1 1
FWRITE CHAR
POP 2 0
FCLOSE
POP 2 0
COPY 1 4
WRITE INT
POP 2 0
CONST INT (7)
CONST INT 9
FWRITE INT
CONST CHAR "/nonexistent-nesl-io-root-test/file"
CONST INT 1
FOPEN
START_TIMER
STOP_TIMER
RET
)";
}

}  // namespace

TEST_CASE("only the io root touches the outside world; every process pushes what it found",
          "[vm][io_root]") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("nesl_io_root_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto input = dir / "in.txt", output = dir / "out.txt";
  std::ofstream(input) << "( 1 -2 3 )\n( 1.5 2.5 )\n(T F T)\n[ 2 1 ]\nrest of the text\n";
  const vcode::Program program = parse(io_program(input.string(), output.string()));

  std::vector<std::string> shares;
  SimulatedProcess root(true, shares);
  const Run root_run = run_machine(program, root, {});
  INFO("root stdout:\n" << root_run.out << "root stderr:\n" << root_run.err);
  CHECK(root_run.status == 0);
  CHECK(contents(output) ==
        "( 1 -2 3 )\n( 1.50000000000000e+00 2.50000000000000e+00 )\n( T F T )\n[ 2 1 ]\n"
        "\nrest of the text\n");
  CHECK(root_run.err == "( 1 -2 3 )\n");
  // What was read, the failed FWRITE's and FOPEN's status and the time stay on the stack.
  CHECK(root_run.out.starts_with("( 2 )\n( 4 )\n( 3 )\n( 1 -2 3 )\n"
                                 "( 1.50000000000000e+00 2.50000000000000e+00 )\n"
                                 "( T F T )\n[ 2 1 ]\n( 10 114 101 115 116 "));
  CHECK(root_run.out.find("( F )\n( -1 )\n( 78 111 32 115 117 99 104 ") != std::string::npos);
  // SPAWN, FOPEN, 4 FREADs, FREAD_CHAR, FCLOSE, FOPEN, 5 FWRITEs, FCLOSE, WRITE, FOPEN, STOP_TIMER
  // (the FWRITE to stream 9 reaches nothing).
  CHECK(shares.size() == 18);

  // The other process, with no files: it must open, read and write none.
  std::filesystem::remove(input);
  std::filesystem::remove(output);
  SimulatedProcess other(false, shares);
  const Run other_run = run_machine(program, other, {});
  CHECK(other_run.status == 0);
  CHECK(other_run.out.empty());
  CHECK(other_run.err.empty());
  CHECK_FALSE(std::filesystem::exists(output));
  CHECK_FALSE(other.effect_ran_here);
  CHECK(other.shares_replayed == shares.size());
  // The same backend calls with the same data: the same values pushed, the same values read.
  CHECK(other.calls == root.calls);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the profile shows messages only where a process sent some", "[vm][io_root][profile]") {
  const vcode::Program program = parse("FUNC MAIN\nSTART_TIMER\nSTOP_TIMER\nRET\n");
  vm::MachineOptions options;
  options.profile = true;

  auto cpu = cvl::make_cpu_backend({1});
  const Run alone = run_machine(program, *cpu, options);
  INFO(alone.err);
  CHECK(alone.status == 0);
  CHECK(alone.err.find("STOP_TIMER") != std::string::npos);
  CHECK(alone.err.find("message") == std::string::npos);

  // Two processes, each sending STOP_TIMER's upload (8 bytes) as one message.
  std::vector<std::string> shares;
  SimulatedProcess root(true, shares, true);
  const Run distributed = run_machine(program, root, options);
  INFO(distributed.err);
  CHECK(distributed.status == 0);
  CHECK(std::count(root.calls.begin(), root.calls.end(), "gather") == 1);
  // The opcode's row: messages 2, message bytes 16 over both processes.
  CHECK(distributed.err.find("     messages  message bytes\n") != std::string::npos);
  const auto row = distributed.err.find("\nSTOP_TIMER ");
  REQUIRE(row != std::string::npos);
  CHECK(distributed.err.substr(row, distributed.err.find('\n', row + 1) - row)
            .ends_with("              2             16"));
  CHECK(distributed.err.find("process          messages            bytes\n"
                             "0                       1                8\n"
                             "1                       1                8\n"
                             "total                   2               16\n") != std::string::npos);
}

TEST_CASE("a shared result reads back what was written, or the failure of the effect",
          "[vm][io_root]") {
  vm::SharedResult written;
  written << std::int32_t{-7} << 2.5 << std::string("msg") << std::vector<std::uint8_t>{1, 0, 1};
  vm::SharedResult shared;  // another process's, given the root's bytes
  shared.bytes() = written.bytes();
  CHECK_FALSE(shared.failed());
  std::int32_t n = 0;
  double x = 0;
  std::string text;
  std::vector<std::uint8_t> flags;
  shared >> n >> x >> text >> flags;
  CHECK(n == -7);
  CHECK(x == 2.5);
  CHECK(text == "msg");
  CHECK(flags == std::vector<std::uint8_t>{1, 0, 1});
  CHECK_THROWS_AS(shared >> n, cvl::InternalError);  // more than the root wrote: a bug in us

  vm::SharedResult failed = vm::SharedResult::failure("ran out of memory");
  CHECK(failed.failed());
  failed >> text;
  CHECK(text == "ran out of memory");
}
