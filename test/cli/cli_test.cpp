// The vinterp command line as a user sees it: the GPU options (-0..-9, --sync, --host-threshold),
// --backend errors, a device failure's message, and the --profile table (its columns and
// deterministic counts, peak vector memory, superoperator planning), --sandbox, --max-call-depth and --max-memory;
// the peak memory of a generated vector read by a check and a sum (made in each, never stored)
// and of all-pairs terms and matrix products (streamed into their readers); descriptors past 2^31 - 1;
// what a process of an mpirun other than rank 0 prints before its backend exists (nothing); and
// fcode-opt's option errors.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

using namespace cli;

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Column titles of the profile header: separated by two or more spaces (titles like "time s"
// hold single spaces).
std::vector<std::string> split_titles(const std::string& line) {
  std::vector<std::string> titles;
  std::string current;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    const bool gap =
        i == line.size() || (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ');
    if (!gap) {
      current += line[i];
      continue;
    }
    while (!current.empty() && current.back() == ' ') current.pop_back();
    while (!current.empty() && current.front() == ' ') current.erase(current.begin());
    if (!current.empty()) titles.push_back(current);
    current.clear();
  }
  return titles;
}

// The profile table of vinterp's stderr: column titles and, per opcode (and "total"), the row's
// fields by title.
struct ProfileTable {
  std::vector<std::string> titles;
  std::map<std::string, std::map<std::string, std::string>> rows;
  std::vector<std::string> lines_before;  // header notes
};

ProfileTable parse_profile(const std::string& err) {
  ProfileTable table;
  std::istringstream in(err);
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (!in_table) {
      if (line.rfind("opcode ", 0) == 0) {
        table.titles = split_titles(line);
        in_table = true;
      } else {
        table.lines_before.push_back(line);
      }
      continue;
    }
    auto words = split_words(line);
    if (words.size() != table.titles.size()) break;  // the wall-time line ends the table
    auto& row = table.rows[words[0]];
    for (std::size_t i = 1; i < words.size(); ++i) row[table.titles[i]] = words[i];
    if (words[0] == "total") break;
  }
  return table;
}

struct ExpectedRow {
  std::string opcode;
  std::string count;
  std::string elements;
  std::string work;
};

std::vector<ExpectedRow> expected_rows() {
  std::vector<ExpectedRow> rows;
  std::istringstream in(read_file(test_dir + "/profile_counts.profile"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto words = split_words(line);
    REQUIRE(words.size() == 4);
    rows.push_back({words[0], words[1], words[2], words[3]});
  }
  REQUIRE(!rows.empty());
  return rows;
}

void check_counts(const ProfileTable& table) {
  const auto expected = expected_rows();
  CHECK(table.rows.size() == expected.size());
  for (const auto& row : expected) {
    INFO("opcode " << row.opcode);
    auto found = table.rows.find(row.opcode);
    REQUIRE(found != table.rows.end());
    CHECK(found->second.at("count") == row.count);
    CHECK(found->second.at("elements") == row.elements);
    CHECK(found->second.at("work") == row.work);
  }
}

bool backend_available(const std::string& name) {
  auto result = run_vinterp({"--version"});
  auto words = split_words(result.out);
  for (auto& w : words)
    if (w == name || w == name + ")") return true;
  return false;
}

}  // namespace

// The tests that need a GPU or MPI backend are compiled only where it is built (NESL_HAS_...):
// the build's word for it must be vinterp's.
TEST_CASE("the GPU and MPI backends this build has are the ones vinterp --version names", "[cli]") {
  CHECK(backend_available("cuda") == bool(NESL_HAS_CUDA));
  CHECK(backend_available("cuda-emulated") == bool(NESL_HAS_CUDA_EMULATED));
  CHECK(backend_available("mpi") == bool(NESL_HAS_MPI));
}

TEST_CASE("GPU options are accepted and leave a cpu run unchanged", "[cli]") {
  const auto plain = run_vinterp({"--threads", "1", program});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out == read_file(test_dir + "/profile_counts.expected"));
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"-3"},
                                             {"-0", "-9"},
                                             {"--sync"},
                                             {"--host-threshold", "0"},
                                             {"--host-threshold=65536"},
                                             {"-7", "--sync", "--host-threshold", "4096"}}) {
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--threads", "1", program});
    auto result = run_vinterp(full);
    INFO("args: " << args.front() << " stderr: " << result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out == plain.out);
    CHECK(result.err.empty());
  }
}

TEST_CASE("Bad --host-threshold values are usage errors", "[cli]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {{"--host-threshold=-1"}, "--host-threshold must be 0 or more"},
           {{"--host-threshold", "lots"}, "('lots') for option '--host-threshold' is invalid"},
           {{"--host-threshold=1.5"}, "for option '--host-threshold' is invalid"},
           {{"--sync=yes"}, "sync"}}) {
    std::vector<std::string> full = c.args;
    full.push_back(program);
    auto result = run_vinterp(full);
    INFO("args: " << c.args.front() << " stderr: " << result.err);
    CHECK(result.exit_code == 1);
    CHECK(result.out.empty());
    CHECK(result.err.find(c.message) != std::string::npos);
    CHECK(result.err.find("Long options:") != std::string::npos);  // the usage text follows
  }
}

TEST_CASE("math modes: exact is the classic's output and the --threads 1 default, fast the others",
          "[cli][math]") {
  const std::string residuals = test_dir + "/math_residuals.vcode";
  const std::string classic = read_file(test_dir + "/math_residuals.expected");
  auto output = [&](std::vector<std::string> args) {
    args.push_back(residuals);
    auto result = run_vinterp(args);
    REQUIRE(result.exit_code == 0);
    return result.out;
  };
  CHECK(output({"--threads", "1"}) == classic);
  CHECK(output({"--math", "exact"}) == classic);
  CHECK(output({"--threads", "2", "--math", "exact"}) == classic);
  // The residuals show the last bits: the fast functions print differently, the same at any
  // thread count (elementwise results do not depend on how the work is split).
  const std::string fast = output({"--threads", "1", "--math", "fast"});
  // A build without SLEEF computes the fast mode with the C library too (vinterp --version).
  const bool sleef = run_vinterp({"--version"}).out.find("--math fast: SLEEF") != std::string::npos;
  CHECK((fast != classic) == sleef);
  CHECK(output({}) == fast);
  CHECK(output({"--threads", "2"}) == fast);
  auto bad = run_vinterp({"--math", "quick", residuals});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("--math must be exact or fast") != std::string::npos);
}

TEST_CASE("huge pages: each setting gives the classic's output; a wrong one is a usage error",
          "[cli][huge-pages]") {
  const std::string residuals = test_dir + "/math_residuals.vcode";
  const std::string classic = read_file(test_dir + "/math_residuals.expected");
  for (const char* setting : {"auto", "on", "off"}) {
    auto result = run_vinterp({"--threads", "1", "--huge-pages", setting, residuals});
    CHECK(result.exit_code == 0);
    CHECK(result.out == classic);
  }
  CHECK(run_vinterp({"--version"}).out.find("; --huge-pages auto: o") != std::string::npos);
  auto bad = run_vinterp({"--huge-pages", "always", residuals});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("--huge-pages must be auto, on or off") != std::string::npos);
}

TEST_CASE("An unknown backend is an error listing the available ones", "[cli]") {
  auto result = run_vinterp({"--backend", "no-such-backend", program});
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  CHECK(result.err.find("backend 'no-such-backend' is not available") != std::string::npos);
  CHECK(result.err.find("(available: cpu") != std::string::npos);
}

// An environment variable set for one scope (the child processes inherit it).
struct ScopedVariable {
  ScopedVariable(const char* name, const char* value) : name(name) { setenv(name, value, 1); }
  ~ScopedVariable() { unsetenv(name); }
  const char* name;
};

#if NESL_HAS_MPI  // the test needs the backend; builds without it have no such test
TEST_CASE("under mpirun, processes other than rank 0 print nothing before the backend exists",
          "[cli][mpi]") {
  const std::vector<std::vector<std::string>> failures = {
      {"--backend", "mpi"},                                  // no file: a usage error
      {"--backend=mpi", "--no-such-option", program},        // Boost's usage error
      {"--backend", "mpi", "/nonexistent-nesl-dir/a.vcode"}  // the program cannot be loaded
  };
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    ScopedVariable rank(variable, "1");
    for (const auto& args : failures) {
      INFO(variable << " " << args[0] << " " << args[1]);
      auto quiet = run_vinterp(args);
      CHECK(quiet.exit_code == 1);
      CHECK(quiet.out.empty());
      CHECK(quiet.err.empty());
    }
    auto help = run_vinterp({"--backend", "mpi", "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out.empty());
  }
  // Rank 0 prints; so does every process of a run on another backend.
  for (const auto& [rank, backend] : {std::pair{"0", "mpi"}, std::pair{"1", "cpu"}}) {
    ScopedVariable variable("OMPI_COMM_WORLD_RANK", rank);
    auto loud = run_vinterp({"--backend", backend});
    CHECK(loud.exit_code == 1);
    CHECK(loud.err.find("Please supply file name.") != std::string::npos);
  }
  {  // VINTERP_OPTIONS asks for the backend when the command line does not
    ScopedVariable rank("OMPI_COMM_WORLD_RANK", "3");
    ScopedVariable options("VINTERP_OPTIONS", "--backend mpi");
    CHECK(run_vinterp({}).err.empty());
  }
  // --trace-json: only rank 0 writes the file (it is opened before the program is loaded).
  const std::string trace = "/tmp/nesl_cli_mpi_trace_" + std::to_string(getpid()) + ".json";
  for (const char* rank : {"1", "0"}) {
    ScopedVariable variable("OMPI_COMM_WORLD_RANK", rank);
    std::remove(trace.c_str());
    auto result = run_vinterp({"--backend", "mpi", "--trace-json", trace, "/nonexistent-nesl-dir/a"});
    CHECK(result.exit_code == 1);
    CHECK(std::ifstream(trace).good() == (std::string(rank) == "0"));
  }
  std::remove(trace.c_str());
}
#endif

TEST_CASE("vinterp --help documents the GPU options", "[cli]") {
  auto result = run_vinterp({"--help"});
  CHECK(result.exit_code == 0);
  for (const char* option : {"--sync", "--host-threshold N", "--backend NAME", "-<num>", "--speculation"})
    CHECK(result.out.find(option) != std::string::npos);
}

TEST_CASE("vinterp --profile prints per-opcode counts and elements on the cpu backend",
          "[cli][profile]") {
  auto result = run_vinterp({"--profile", "--threads", "1", program});
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == read_file(test_dir + "/profile_counts.expected"));
  auto table = parse_profile(result.err);
  INFO("stderr: " << result.err);
  // The host backend launches nothing: its table keeps the classic columns and the peak bytes.
  CHECK(table.titles == std::vector<std::string>{"opcode", "count", "time s", "time %", "ns/op",
                                                 "elements", "work", "peak bytes", "peak added"});
  CHECK(table.lines_before.empty());
  check_counts(table);
  CHECK(result.err.find("wall time ") != std::string::npos);
  CHECK(result.err.find("device memory peak") == std::string::npos);
}

namespace {

std::uint64_t peak_of(ProfileTable& table, const std::string& opcode,
                      const std::string& column = "peak bytes") {
  REQUIRE(table.rows.count(opcode));
  return std::stoull(table.rows[opcode][column]);
}

}  // namespace

TEST_CASE("vinterp --profile shows the most vector memory in use while each opcode ran",
          "[cli][profile]") {
  // A sum of 2 * 10^6 values made by INDEX and I_TO_F, then a scan stored (8 * 10^6 bytes).
  const std::string peaks = test_dir + "/profile_peaks.vcode";
  const auto streamed = run_vinterp({"--profile", "--threads", "1", peaks});
  INFO("stderr: " << streamed.err);
  REQUIRE(streamed.exit_code == 0);
  ProfileTable table = parse_profile(streamed.err);
  CHECK(peak_of(table, "+_SCAN") >= 8000000);
  CHECK(peak_of(table, "total") >= 8000000);
  // The scan allocates its result; the reduction after it only reads it, while it is held.
  CHECK(peak_of(table, "+_SCAN", "peak added") >= 8000000);
  CHECK(peak_of(table, "MAX_REDUCE") >= 8000000);
  CHECK(peak_of(table, "MAX_REDUCE", "peak added") < 1000000);
  // The sum reads the values as they are made: none is stored, as in a run without --profile.
  CHECK(peak_of(table, "+_REDUCE") < 1000000);
  const auto summary = streamed.err.find("vector memory peak ");
  REQUIRE(summary != std::string::npos);
  CHECK(std::stoull(streamed.err.substr(summary + 19)) >= peak_of(table, "total"));

  // Computed one op at a time, the 2 * 10^6 floats are stored before the sum reads them.
  const auto eager = run_vinterp({"--profile", "--threads", "1", "--eager", peaks});
  INFO("stderr: " << eager.err);
  REQUIRE(eager.exit_code == 0);
  CHECK(eager.out == streamed.out);
  ProfileTable stored = parse_profile(eager.err);
  CHECK(peak_of(stored, "+_REDUCE") >= 16000000);

  if (backend_available("cuda-emulated")) {  // the device's memory
    const auto device = run_vinterp(
        {"--profile", "--backend", "cuda-emulated", "--host-threshold", "0", peaks});
    INFO("stderr: " << device.err);
    REQUIRE(device.exit_code == 0);
    CHECK(device.out == streamed.out);
    ProfileTable on_device = parse_profile(device.err);
    CHECK(peak_of(on_device, "+_SCAN") >= 8000000);
  }
}

TEST_CASE("vinterp --profile --source-map adds a table per NESL source line", "[cli][profile]") {
  // The map puts MAIN's sum on line 1 and its call of the scan on line 2; the scan's own lines
  // are not in it (as a built-in function's are not), so they count for the line of the call.
  const std::string peaks = test_dir + "/profile_peaks.vcode";
  const auto result = run_vinterp(
      {"--profile", "--threads", "1", "--source-map", test_dir + "/profile_peaks.map", peaks});
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  std::map<std::string, std::vector<std::string>> rows;  // by source line: the row's words
  const auto table = result.err.find("\nsource line ");
  REQUIRE(table != std::string::npos);
  std::istringstream in(result.err.substr(table + 1));
  std::string line;
  std::getline(in, line);  // the titles
  while (std::getline(in, line) && line.rfind("peaks.nesl:", 0) == 0) {
    const auto words = split_words(line);
    REQUIRE(words.size() == 6);  // source line, instructions, time s, time %, peak bytes, added
    rows[words[0]] = words;
  }
  REQUIRE(rows.size() == 2);
  CHECK(rows["peaks.nesl:1"][1] == "9");
  CHECK(std::stoull(rows["peaks.nesl:1"][4]) < 1000000);
  CHECK(rows["peaks.nesl:2"][1] == "13");  // the CALL and the 12 instructions it ran
  CHECK(std::stoull(rows["peaks.nesl:2"][4]) >= 8000000);
  CHECK(std::stoull(rows["peaks.nesl:2"][5]) >= 8000000);

  // The map is for the profile; a map that is not one is an error before the run.
  const auto alone = run_vinterp({"--source-map", test_dir + "/profile_peaks.map", peaks});
  CHECK(alone.exit_code == 1);
  CHECK(alone.err.find("--source-map goes with --profile") != std::string::npos);
  const auto not_a_map = run_vinterp({"--profile", "--source-map", peaks, peaks});
  CHECK(not_a_map.exit_code == 1);
  CHECK(not_a_map.err.find("is not VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE") != std::string::npos);
  CHECK(not_a_map.out.empty());
}

#if NESL_HAS_CUDA_EMULATED  // the test needs the backend; builds without it have no such test
TEST_CASE("vinterp --profile on an emulated GPU backend adds launch and sync columns",
          "[cli][profile]") {
  // --host-threshold 0: every vector operation runs on the (emulated) device.
  auto result = run_vinterp({"--profile", "--backend", "cuda-emulated", "--host-threshold", "0",
                             "--threads", "1", program});
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == read_file(test_dir + "/profile_counts.expected"));
  auto table = parse_profile(result.err);
  INFO("stderr: " << result.err);
  check_counts(table);
  REQUIRE(table.rows.count("total"));
  const auto& titles = table.titles;
  REQUIRE(std::find(titles.begin(), titles.end(), "launches") != titles.end());
  CHECK(std::stoull(table.rows["total"]["launches"]) > 0);
  CHECK(result.err.find("times are device times") != std::string::npos);
  CHECK(result.err.find("device memory peak") != std::string::npos);
}

TEST_CASE("vinterp --profile on an emulated GPU backend shows device traffic against the least",
          "[cli][profile]") {
  // 10^5 INTs on the device: the minimum reads each operand element once (a descriptor's lengths:
  // 4 bytes a segment) and writes each result element once; bytes moved are the kernels' (the
  // cvl-cuda traffic test works them out). --eager: each instruction's kernels run when it does
  // (a pending INDEX would be computed, and counted, by the PERMUTE that reads it).
  auto result = run_vinterp({"--profile", "--backend", "cuda-emulated", "--host-threshold", "0",
                             "--threads", "1", "--eager", test_dir + "/profile_traffic.vcode"});
  REQUIRE(result.exit_code == 0);
  CHECK(result.out == "( 704982704 )\n");
  ProfileTable table = parse_profile(result.err);
  INFO("stderr: " << result.err);
  for (const char* title : {"bytes moved", "bytes minimum", "moved/min"})
    REQUIRE(std::find(table.titles.begin(), table.titles.end(), title) != table.titles.end());
  // The sum: the elements once and the result; at least the elements, the descriptor, the result.
  CHECK(table.rows["+_REDUCE"]["bytes moved"] == "400004");
  CHECK(table.rows["+_REDUCE"]["bytes minimum"] == "400008");
  CHECK(table.rows["+_REDUCE"]["moved/min"] == "1.00");
  // The scatter clears, claims and reads back a claim per element besides values and result.
  CHECK(table.rows["PERMUTE"]["bytes moved"] == "3200032");
  CHECK(table.rows["PERMUTE"]["bytes minimum"] == "1200004");
  CHECK(table.rows["PERMUTE"]["moved/min"] == "2.67");
  // INDEX: the start, stride and descriptor read, each element written.
  CHECK(table.rows["INDEX"]["bytes minimum"] == "400012");
  // Instructions that moved no device bytes have no minimum.
  CHECK(table.rows["CONST"]["bytes moved"] == "0");
  CHECK(table.rows["CONST"]["bytes minimum"] == "0");
  CHECK(table.rows["CONST"]["moved/min"] == "-");
}
#endif

#if NESL_HAS_CUDA_EMULATED
TEST_CASE("vinterp --emulate-async leaves the output and the counts of --profile as they are",
          "[cli][profile][async]") {
  // Everything but the times: what ran, on how many elements, and what the device was asked to
  // do (launches, waits, copies, bytes), per opcode and in the summary line.
  const auto counts = [](const std::string& err) {
    ProfileTable table = parse_profile(err);
    for (auto& [opcode, columns] : table.rows)
      for (const char* time : {"time s", "time %", "ns/op"}) columns.erase(time);
    const auto summary = err.find("device memory peak");
    return std::make_pair(table.rows, summary == std::string::npos ? "" : err.substr(summary));
  };
  for (const std::string& file : {program, test_dir + "/fused_plans.fcode"}) {
    for (const char* threshold : {"0", "4096"}) {
      INFO(file << " --host-threshold " << threshold);
      const std::vector<std::string> args = {"--profile",        "--backend", "cuda-emulated",
                                             "--host-threshold", threshold,   file};
      const auto at_once = run_vinterp(args);
      std::vector<std::string> late_args = args;
      late_args.insert(late_args.begin(), {"--emulate-async", "5"});
      const auto late = run_vinterp(late_args);
      REQUIRE(at_once.exit_code == 0);
      REQUIRE(late.exit_code == 0);
      CHECK(late.out == at_once.out);
      const auto expected = counts(at_once.err);
      REQUIRE(!expected.first.empty());
      REQUIRE(!expected.second.empty());
      CHECK(counts(late.err) == expected);
    }
  }
  // A seed for any other backend is a mistake the user should hear about.
  const auto cpu = run_vinterp({"--emulate-async", "1", program});
  CHECK(cpu.exit_code == 1);
  CHECK(cpu.err.find("--emulate-async is for --backend cuda-emulated") != std::string::npos);
}
#endif

TEST_CASE("vinterp --profile counts FUSED like any other opcode", "[cli][profile]") {
  // An FCODE program of the golden tests with no CALL: each FUSED line runs once.
  const std::string fcode = test_dir + "/../golden/fused_elementwise.fcode";
  INFO(fcode);
  REQUIRE(std::ifstream(fcode));
  std::size_t fused_lines = 0;
  std::istringstream source(read_file(fcode));
  for (std::string line; std::getline(source, line);) {
    REQUIRE(line.rfind("CALL", 0) != 0);
    if (line.rfind("FUSED ", 0) == 0) ++fused_lines;
  }
  REQUIRE(fused_lines > 0);
  auto result = run_vinterp({"--profile", "--threads", "1", fcode});
  REQUIRE(result.exit_code == 0);
  auto table = parse_profile(result.err);
  INFO("stderr: " << result.err);
  REQUIRE(table.rows.count("FUSED"));
  CHECK(table.rows["FUSED"]["count"] == std::to_string(fused_lines));
}

TEST_CASE("vinterp plans each superoperator once, however often FUSED runs it", "[cli][profile]") {
  // FUSED 0 runs 20 times on 5000 elements: on the cpu backend, and on the emulated GPU with
  // everything on the device and with its default host threshold.
  const std::string fcode = test_dir + "/fused_plans.fcode";
  std::vector<std::vector<std::string>> runs = {{"--threads", "1"}};
  if (backend_available("cuda-emulated")) {
    runs.push_back({"--backend", "cuda-emulated", "--host-threshold", "0"});
    runs.push_back({"--backend", "cuda-emulated"});
  }
  for (auto args : runs) {
    INFO("args: " << args[0] << " " << args[1]);
    args.insert(args.begin(), "--profile");
    args.push_back(fcode);
    auto result = run_vinterp(args);
    INFO("stderr: " << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out == read_file(test_dir + "/fused_plans.expected"));
    auto table = parse_profile(result.err);
    REQUIRE(table.rows.count("FUSED"));
    CHECK(table.rows["FUSED"]["count"] == "20");
    CHECK(result.err.find("superoperators planned: 1 ") != std::string::npos);
  }
}

TEST_CASE("the program listing of -d program shows the SUPEROP definitions before the code") {
  const std::string fcode = test_dir + "/../golden/fused_reduce_scan.fcode";
  auto result = run_vinterp({"-d", "program", fcode});
  CHECK(result.exit_code == 0);
  const auto first = result.err.find("SUPEROP 0 (INT INT SEGDES) (+_REDUCE INT (* INT $0 $1) $2)\n");
  const auto code = result.err.find("(0) vop = ");
  CHECK(first != std::string::npos);
  CHECK(code != std::string::npos);
  CHECK(first < code);
}

#if NESL_HAS_CUDA  // the test needs the backend; builds without it have no such test
TEST_CASE("a GPU backend without the device asked for is a device failure, not a program error",
          "[cli]") {
  // Device 9: absent here whether or not the machine has a GPU.
  auto result = run_vinterp({"--backend", "cuda", "-9", program});
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  CHECK(result.err.rfind("vinterp: device failure: no CUDA device", 0) == 0);
}
#endif

TEST_CASE("fcode-opt --dump-after with an unknown pass is an error listing the passes",
          "[cli][fcode-opt]") {
  // The known names: those --list-passes prints (lift, the pipeline's table, lower), and all.
  auto listing = run_command({fcode_opt, "--list-passes"});
  REQUIRE(listing.exit_code == 0);
  std::string names;
  std::istringstream lines(listing.out);
  for (std::string line; std::getline(lines, line);) names += line.substr(0, line.find(':')) + ", ";
  REQUIRE(names.starts_with("lift, inline, "));
  auto result = run_command({fcode_opt, "--dump-after", "fusion", program});
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  CHECK(result.err == "fcode-opt: unknown pass \"fusion\" for --dump-after (" + names + "all)\n");
  auto known = run_command({fcode_opt, "--dump-after", "fuse", program});
  CHECK(known.exit_code == 0);
  CHECK(known.err.rfind("=== after fuse ===\n", 0) == 0);
}

TEST_CASE("vinterp --sandbox refuses FOPEN and SPAWN with a runtime error naming the instruction",
          "[cli][sandbox]") {
  struct Case {
    std::string program;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {"file_io.vcode", "instruction FOPEN: FOPEN is not allowed with --sandbox"},
           {"spawn_echo.vcode", "instruction SPAWN: SPAWN is not allowed with --sandbox"}}) {
    auto result = run_vinterp({"--sandbox", test_dir + "/../golden/" + c.program});
    INFO(c.program << " stderr: " << result.err);
    CHECK(result.exit_code == 1);
    CHECK(result.err.rfind("vinterp: " + test_dir + "/../golden/" + c.program + ":", 0) == 0);
    CHECK(result.err.find(c.message) != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);  // one line
  }
}

TEST_CASE("vinterp --sandbox still reads stdin and writes stdout", "[cli][sandbox]") {
  const std::string golden = test_dir + "/../golden/read_stdin";
  auto result = corpus::run_process({vinterp, "--sandbox", golden + ".vcode"}, "/tmp",
                                    golden + ".in", 60.0);
  INFO("stderr: " << result.err);
  REQUIRE(result.exited);
  CHECK(result.exit_code == 0);
  CHECK(result.out == read_file(golden + ".expected"));
}

TEST_CASE("vinterp --max-call-depth bounds recursion, and bad values are usage errors", "[cli]") {
  const std::string recursive = test_dir + "/../errors/call_depth_exceeded.vcode";
  auto limited = run_vinterp({"--max-call-depth", "10", recursive});
  CHECK(limited.exit_code == 1);
  CHECK(limited.err.find("instruction CALL MAIN1_1: call depth limit exceeded: 10 calls deep "
                         "(--max-call-depth 10)") != std::string::npos);
  for (const char* bad : {"0", "-3", "many"}) {
    auto result = run_vinterp({"--max-call-depth", bad, recursive});
    INFO("value " << bad << " stderr: " << result.err);
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("max-call-depth") != std::string::npos);
    CHECK(result.err.find("Long options:") != std::string::npos);
  }
  auto help = run_vinterp({"--help"});
  for (const char* option : {"--max-call-depth N", "--sandbox"})
    CHECK(help.out.find(option) != std::string::npos);
}

TEST_CASE("vinterp --max-memory refuses an allocation past the limit before making it", "[cli]") {
  const std::string big = test_dir + "/three_big_vectors.vcode";     // 3 x 8e9 bytes
  const std::string small = test_dir + "/three_vectors_4mb.vcode";  // 3 x 4e6 bytes
  std::vector<std::string> backends = {"cpu"};
  if (backend_available("cuda-emulated")) backends.push_back("cuda-emulated");
  for (const auto& backend : backends) {
    INFO("backend " << backend);
    // The first 8 GB vector is refused where its memory is first asked for: nothing large is ever
    // allocated. A DIST waits until its elements are read (a vector of one value on the host, a
    // pending DIST on the device), here by the final stack dump.
    auto refused = run_vinterp({"--backend", backend, "--max-memory", "64M", big});
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 1);
    CHECK(refused.out.empty());
    const std::string where = "three_big_vectors.vcode: the final stack dump: ";
    CHECK(refused.err.find(where + "out of vector memory: 8000000000 bytes requested, ") !=
          std::string::npos);
    CHECK(refused.err.find(" in use, limit 67108864 (--max-memory)") != std::string::npos);
    CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
    // Two 4 MB vectors fit in 10 MiB, the third does not; live bytes are counted (the stack dump
    // writes the first two before the third).
    auto third = run_vinterp({"--backend", backend, "--max-memory", "10M", small});
    INFO("stderr: " << third.err);
    CHECK(third.exit_code == 1);
    const std::string third_where = "three_vectors_4mb.vcode: the final stack dump: ";
    CHECK(third.err.find(third_where + "out of vector memory: 4000000 bytes requested, 800") !=
          std::string::npos);
    CHECK(third.err.find("limit 10485760 (--max-memory)") != std::string::npos);
    auto fits = run_vinterp({"--backend", backend, "--max-memory", "16m", small});
    CHECK(fits.exit_code == 0);
    CHECK(fits.err.empty());
  }
}

TEST_CASE("vinterp --max-memory and --profile count a vector of one value once it is written",
          "[cli][profile]") {
  // sumlogsum(300): its DISTs of one value (72 * 10^6 bytes each, were they written) are only
  // ever read as that value; the run holds under a megabyte of vector memory.
  const std::string streamed = test_dir + "/sumlogsum_checked.vcode";
  const auto small = run_vinterp({"--threads", "1", "--max-memory", "1M", streamed});
  INFO("stderr: " << small.err);
  CHECK(small.exit_code == 0);
  CHECK(small.out == "( 8.81386861275474e+07 )\n");
  CHECK(small.err.empty());
  const auto profiled = run_vinterp({"--profile", "--threads", "1", streamed});
  INFO("stderr: " << profiled.err);
  REQUIRE(profiled.exit_code == 0);
  ProfileTable table = parse_profile(profiled.err);
  CHECK(peak_of(table, "DIST") < 1000000);
  CHECK(peak_of(table, "total") < 1000000);

  // A DIST of 16 * 10^6 bytes whose elements a scan reads: the scan writes them, and is charged.
  const std::string written = test_dir + "/dist_written_by_scan.vcode";
  const auto scanned = run_vinterp({"--profile", "--threads", "1", written});
  INFO("stderr: " << scanned.err);
  REQUIRE(scanned.exit_code == 0);
  CHECK(scanned.out == "( 11999997 )\n");
  ProfileTable charged = parse_profile(scanned.err);
  CHECK(peak_of(charged, "DIST", "peak added") < 1000000);
  CHECK(peak_of(charged, "+_SCAN", "peak added") >= 16000000);
  const auto refused = run_vinterp({"--threads", "1", "--max-memory", "12M", written});
  INFO("stderr: " << refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.empty());
  CHECK(refused.err.find("dist_written_by_scan.vcode:10: in function MAIN1_1, instruction +_SCAN "
                         "INT: out of vector memory: 16000000 bytes requested, ") !=
        std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  const auto fits = run_vinterp({"--threads", "1", "--max-memory", "24M", written});
  CHECK(fits.exit_code == 0);
  CHECK(fits.out == scanned.out);
}

TEST_CASE("a generated vector that a check and a sum both read is made in each, never stored",
          "[cli]") {
  // sumlogsum(300) with argument checks: ln's check and the sum of the logs both read float(i)
  // for i in an INDEX, 9 x 10^6 floats (72 MB stored). Without checks only the sum reads it.
  const auto checked = run_vinterp({"--threads", "1", test_dir + "/sumlogsum_checked.vcode"});
  const auto unchecked = run_vinterp({"--threads", "1", test_dir + "/sumlogsum_unchecked.vcode"});
  const auto eager =
      run_vinterp({"--threads", "1", "--eager", test_dir + "/sumlogsum_checked.vcode"});
  const auto two = run_vinterp({"--threads", "2", test_dir + "/sumlogsum_checked.vcode"});
  CHECK(checked.out == "( 8.81386861275474e+07 )\n");
  CHECK(unchecked.out == checked.out);
  CHECK(eager.out == checked.out);
  CHECK(two.out == checked.out);
  INFO("peak KB: checked " << checked.peak_kb << ", unchecked " << unchecked.peak_kb);
  CHECK(unchecked.peak_kb > 0);
  CHECK(checked.peak_kb < unchecked.peak_kb + 24 * 1024);
}

namespace {

// x as vinterp prints a FLOAT (%.14e).
std::string formatted(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.14e", x);
  return text;
}

}  // namespace

TEST_CASE("a costly vector read by sums and scans is folded and scanned in one pass, never stored",
          "[cli]") {
  // test/shared-folds/scan_readers.vcode: logs read by sums and scans. Each scan writes only its
  // own result, byte for byte what --eager gives at each thread count (float scans regroup by
  // thread part, as the stored log's scans do).
  const std::string path = test_dir + "/../shared-folds/scan_readers.vcode";
  for (const char* threads : {"1", "2", "3", "4", "8"}) {
    INFO(threads << " threads");
    const auto grouped = run_vinterp({"--threads", threads, "--max-memory", "16M", path});
    const auto eager = run_vinterp({"--threads", threads, "--eager", path});
    CHECK(grouped.exit_code == 0);
    CHECK(eager.exit_code == 0);
    CHECK(grouped.out == eager.out);
  }
  // Too little for the second scan's result (6.4 MB) beside the first's: that scan's error, as
  // when it runs alone.
  const auto refused = run_vinterp({"--threads", "1", "--max-memory", "10M", path});
  INFO("stderr: " << refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.empty());
  CHECK(refused.err.find("scan_readers.vcode:34: in function FLAT_1, instruction MAX_SCAN FLOAT: "
                         "out of vector memory: 6400000 bytes requested, ") != std::string::npos);
}

TEST_CASE("a descriptor past 2^31 - 1 elements: cpu, mpi and cuda make it, no backend stores that much",
          "[cli]") {
  const std::string message =
      ": segment lengths sum to 2147483653 elements, more than a vector may hold (2147483647)";
  const std::string lengths = test_dir + "/wide_lengths.vcode", scan = test_dir + "/wide_scan.vcode";
  // mpi at one process here; at several, test/cli/mpi_wide_descriptor.sh and test/streamed.
  std::vector<std::string> streaming{"cpu"};
  if (NESL_HAS_MPI) streaming.push_back("mpi");
  if (NESL_HAS_CUDA_EMULATED) streaming.push_back("cuda-emulated");
  for (const std::string& backend : streaming) {
    INFO("backend " << backend);
    const auto legal = run_vinterp({"--threads", "1", "--backend", backend, lengths});
    CHECK(legal.exit_code == 0);
    CHECK(legal.out == "( -2147483643 )\n");
    // The INDEX waits; the scan's result would be stored.
    const auto scanned = run_vinterp({"--threads", "1", "--backend", backend, scan});
    CHECK(scanned.exit_code == 1);
    CHECK(scanned.out.empty());
    CHECK(scanned.err.find("wide_scan.vcode:11: in function MAIN1_1, instruction +_SCAN INT" + message) !=
          std::string::npos);
    // --eager: the INDEX itself would be stored.
    const auto eager = run_vinterp({"--threads", "1", "--backend", backend, "--eager", scan});
    CHECK(eager.exit_code == 1);
    CHECK(eager.err.find("wide_scan.vcode:9: in function MAIN1_1, instruction INDEX" + message) !=
          std::string::npos);
    if (backend != "cuda-emulated") {
      // The sum of a log of the INDEX may wait to be folded with its scan, whose result would be
      // that long. (Two reductions of such a log: wide_folds below.)
      const auto scanned = run_vinterp({"--threads", "1", "--backend", backend,
                                        test_dir + "/wide_sum_and_scan.vcode"});
      CHECK(scanned.exit_code == 1);
      CHECK(scanned.err.find("wide_sum_and_scan.vcode:19: in function MAIN1_1, instruction +_SCAN FLOAT" +
                             message) != std::string::npos);
    } else {
      // A log of the INDEX that two reductions read: the first would store it.
      const auto twice = run_vinterp({"--threads", "1", "--backend", backend, "--max-memory", "1G",
                                      test_dir + "/wide_two_readers.vcode"});
      CHECK(twice.exit_code == 1);
      CHECK(twice.err.find("wide_two_readers.vcode:15: in function MAIN1_1, instruction MAX_REDUCE FLOAT" +
                           message) != std::string::npos);
    }
  }
}

namespace {

// wide_two_sums.vcode's output: (start + i) AND 1023, halved, summed and its max and min taken
// per segment. Every partial sum is exact in doubles, so each thread count gives the same bits as
// this count: whole runs of 1024 residues, then the rest one by one.
std::string wide_two_sums_output() {
  const std::int64_t lengths[] = {1073741900, 1073741800, 1000}, starts[] = {5, -100, -1};
  std::string sums = "(", maxima = "(", minima = "(";
  for (int k = 0; k < 3; ++k) {
    const std::int64_t runs = lengths[k] / 1024;
    double sum = static_cast<double>(runs) * (1023 * 1024 / 2);
    std::int64_t most = 0, least = 1023;
    for (std::int64_t i = runs * 1024; i < lengths[k]; ++i) sum += (starts[k] + i) & 1023;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(lengths[k], 1024); ++i) {
      most = std::max(most, (starts[k] + i) & 1023);
      least = std::min(least, (starts[k] + i) & 1023);
    }
    sums.append(" ").append(formatted(sum / 2));
    maxima.append(" ").append(formatted(most / 2.0));
    minima.append(" ").append(formatted(least / 2.0));
  }
  return sums + " )\n" + maxima + " )\n" + minima + " )\n";
}

// run_vinterp with time for a pass over 2^31 elements on a busy machine.
corpus::ProcessResult run_vinterp_long(std::vector<std::string> args) {
  args.insert(args.begin(), vinterp);
  auto result = corpus::run_process(args, "/tmp", "/dev/null", 900.0);
  INFO("stderr: " << result.err);
  REQUIRE(result.launch_error.empty());
  REQUIRE(result.exited);
  return result;
}

}  // namespace

TEST_CASE("reductions of a costly vector past 2^31 - 1 elements fold together on cpu, each "
          "segment carried across blocks and thread parts",
          "[.][wide_sums]") {
  const auto folded =
      run_vinterp_long({"--max-memory", "64M", test_dir + "/wide_two_sums.vcode"});
  INFO("stderr: " << folded.err);
  CHECK(folded.exit_code == 0);
  CHECK(folded.out == wide_two_sums_output());
}

// Seconds of work each: in the full test run only (test/cli/CMakeLists.txt: cli_wide_folds).
TEST_CASE("wide folds at one thread, and two reductions of a log past 2^31 - 1 elements",
          "[.][wide_folds]") {
  const auto folded = run_vinterp_long({"--threads", "1", "--max-memory", "64M",
                                   test_dir + "/wide_two_sums.vcode"});
  INFO("stderr: " << folded.err);
  CHECK(folded.exit_code == 0);
  CHECK(folded.out == wide_two_sums_output());
  // FLOAT MAX and MIN of the log are the same bits at any thread count: log(start + length - 1)
  // (NaNs before it: max(NaN, x) = x), log(5), and log(0) = -inf (after NaNs in the second
  // segment, first in the third after one). cvl-mpi at one process is cvl-cpu's.
  std::vector<std::string> backends{"cpu"};
  if (NESL_HAS_MPI) backends.push_back("mpi");
  for (const std::string& backend : backends) {
    INFO("backend " << backend);
    const auto twice = run_vinterp_long({"--backend", backend, "--max-memory", "64M",
                                    test_dir + "/wide_two_readers.vcode"});
    INFO("stderr: " << twice.err);
    CHECK(twice.exit_code == 0);
    CHECK(twice.out == "( " + formatted(std::log(5.0 + (1 << 30) - 1)) + " " +
                           formatted(std::log(-100.0 + (1 << 30) - 1)) + " " +
                           formatted(std::log(3.0)) + " )\n( " + formatted(std::log(5.0)) +
                           " -inf -inf )\n");
  }
}

// An all-pairs computation over free sequences read in place (each instance gathers the whole
// of xs and ys by an INDEX) and matrix multiply's products: nothing as long as the pairs is
// stored, though several readers read the potential's terms. Stored, each such vector is
// 72 MB (the potential) or 216 MB (the products).
TEST_CASE("all-pairs terms and matrix products stream into their readers, never stored",
          "[cli]") {
  struct Case {
    const char* file;
    const char* out;
  };
  for (const Case c : {Case{"all_pairs_potential.vcode", "( 2.94678237649515e+05 )\n"},
                       Case{"matrix_multiply.vcode", "( 6.75003646000000e+08 )\n"}}) {
    const std::string path = test_dir + "/" + c.file;
    const auto streamed = run_vinterp_long({"--threads", "1", path});
    const auto optimized = run_vinterp_long({"--threads", "1", "-O", path});
    const auto eager = run_vinterp_long({"--threads", "1", "--eager", path});
    const auto two = run_vinterp_long({"--threads", "2", path});
    INFO(c.file << " peak KB: " << streamed.peak_kb << ", with -O " << optimized.peak_kb);
    CHECK(streamed.out == c.out);
    CHECK(optimized.out == c.out);
    CHECK(eager.out == c.out);
    CHECK(two.out == c.out);
    CHECK(streamed.peak_kb > 0);
    // Stored, the terms alone would pass 72 MB; a sanitizer build's quarantine of freed memory
    // raises the streamed peaks to about 42 MB (14 MB in a release build).
    CHECK(streamed.peak_kb < 48 * 1024);
    CHECK(optimized.peak_kb < 48 * 1024);
  }
}

TEST_CASE("vinterp --max-memory sizes: bytes or K/M/G/T; bad ones are usage errors", "[cli]") {
  for (const char* good : {"1G", "512m", "1GiB", "100MB", "1048576", "2t"}) {
    auto result = run_vinterp_long({"--max-memory", good, program});
    INFO("size " << good << " stderr: " << result.err);
    CHECK(result.exit_code == 0);
  }
  for (const char* bad : {"0", "0M", "-5", "lots", "12X", "1.5G", "G", "99999999999999999999",
                          "20000000T"}) {
    auto result = run_vinterp_long({"--max-memory", bad, program});
    INFO("size " << bad << " stderr: " << result.err);
    CHECK(result.exit_code == 1);
    // Boost reads "-5" as a missing argument; every other value gets our message.
    CHECK(result.err.find(std::string(bad) == "-5" ? "option '--max-memory'"
                                                   : "--max-memory must be a positive size") !=
          std::string::npos);
    CHECK(result.err.find("Long options:") != std::string::npos);
  }
  auto help = run_vinterp_long({"--help"});
  CHECK(help.out.find("--max-memory SIZE") != std::string::npos);
}

#if NESL_HAS_CUDA_EMULATED  // the test needs the backend; builds without it have no such test
TEST_CASE("guessed lengths: a region whose guess was too small runs again, with its WRITEs once",
          "[cli][speculation]") {
  const std::string golden = test_dir + "/../golden/guessed_lengths";
  const std::string writes = read_file(golden + ".stderr");
  for (const bool guessing : {true, false}) {
    std::vector<std::string> args = {"--profile", "--backend", "cuda-emulated",
                                     "--host-threshold", "0", golden + ".vcode"};
    if (guessing) args.insert(args.begin(), "--speculation");
    auto result = run_vinterp_long(args);
    INFO("guessing " << guessing << ", stderr: " << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out == read_file(golden + ".expected"));
    CHECK(result.err.substr(0, writes.size()) == writes);
    CHECK(result.err.find("grow", writes.size()) == std::string::npos);
    // The program's counts grow past every guess its history allows: some guesses must fail.
    CHECK((result.err.find("guessed lengths too small") != std::string::npos) == guessing);
  }
}
#endif
