// What a NESL toolchain that calls `vinterp -m N FILE` can reach (issue 12): -O (fcode-opt's
// pipeline in-process), VINTERP_OPTIONS, and the --trace-json timeline.
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

using namespace cli;
using nlohmann::json;
namespace fs = std::filesystem;

const std::string examples_dir = NESL_EXAMPLES_DIR;
const std::string shared_dir = NESL_SHARED_DIR;

// A scratch directory of its own for each test, removed at the end.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "vinterp_cli_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// VINTERP_OPTIONS set for one scope (the child processes inherit it).
struct EnvironmentOptions {
  explicit EnvironmentOptions(const std::string& value) { setenv("VINTERP_OPTIONS", value.c_str(), 1); }
  ~EnvironmentOptions() { unsetenv("VINTERP_OPTIONS"); }
};

std::vector<std::string> backends() {
  std::vector<std::string> names = {"cpu"};
  const auto version = run_vinterp({"--version"});
  if (version.out.find("cuda-emulated") != std::string::npos) names.push_back("cuda-emulated");
  return names;
}

}  // namespace

TEST_CASE("vinterp -O prints what fcode-opt followed by vinterp prints", "[cli][optimize]") {
  ScratchDir scratch;
  std::vector<std::string> programs = {program, test_dir + "/math_residuals.vcode"};
  for (const auto& entry : fs::directory_iterator(examples_dir))
    if (entry.path().extension() == ".vcode") programs.push_back(entry.path().string());
  for (const auto& backend : backends()) {
    for (const auto& vcode : programs) {
      INFO(backend << " " << vcode);
      const std::string fcode = scratch / "program.fcode";
      REQUIRE(run_command({fcode_opt, vcode, "-o", fcode}).exit_code == 0);
      const auto separate = run_vinterp({"--threads", "1", "--backend", backend, fcode});
      const auto in_process = run_vinterp({"--threads", "1", "--backend", backend, "-O", vcode});
      CHECK(in_process.exit_code == separate.exit_code);
      CHECK(in_process.out == separate.out);
      CHECK(in_process.err == separate.err);
      const auto plain = run_vinterp({"--threads", "1", "--backend", backend, vcode});
      CHECK(in_process.out == plain.out);
    }
  }
}

TEST_CASE("vinterp -O runs fused code, and --profile shows the optimizer's time", "[cli][optimize]") {
  const std::string quicksort = examples_dir + "/quicksort.vcode";
  const auto plain = run_vinterp({"--profile", quicksort});
  const auto optimized = run_vinterp({"--profile", "--optimize", quicksort});
  REQUIRE(optimized.exit_code == 0);
  CHECK(optimized.out == plain.out);
  CHECK(plain.err.find("FUSED") == std::string::npos);
  CHECK(optimized.err.find("FUSED") != std::string::npos);
  CHECK(plain.err.find("optimizer (-O") == std::string::npos);
  CHECK(optimized.err.find("optimizer (-O, fcode-opt's pipeline in-process) ") != std::string::npos);
}

TEST_CASE("vinterp -O leaves FCODE as it is", "[cli][optimize]") {
  const std::string fcode = test_dir + "/fused_plans.fcode";
  const auto plain = run_vinterp({"--threads", "1", fcode});
  const auto optimized = run_vinterp({"--threads", "1", "-O", fcode});
  CHECK(optimized.exit_code == plain.exit_code);
  CHECK(optimized.out == plain.out);
}

TEST_CASE("VINTERP_OPTIONS: options for a toolchain's fixed command line", "[cli][environment]") {
  SECTION("they apply to `vinterp -m N FILE`") {
    EnvironmentOptions env("--profile  -O");
    const auto r = run_vinterp({"-m", "1048576", program});
    CHECK(r.exit_code == 0);
    CHECK(r.out == read_file(test_dir + "/profile_counts.expected"));
    CHECK(r.err.find("optimizer (-O") != std::string::npos);
  }
  SECTION("the command line wins over them") {
    EnvironmentOptions env("--backend no-such-backend --threads 1");
    const auto r = run_vinterp({"--backend", "cpu", program});
    CHECK(r.exit_code == 0);
    CHECK(r.out == read_file(test_dir + "/profile_counts.expected"));
  }
  SECTION("quoted words stay whole") {
    ScratchDir scratch;
    const std::string trace = scratch / "a trace.json";
    EnvironmentOptions env("--trace-json '" + trace + "'");
    CHECK(run_vinterp({program}).exit_code == 0);
    CHECK(fs::file_size(trace) > 0);
  }
  SECTION("an unknown option is an error that names the variable") {
    EnvironmentOptions env("--no-such-option");
    const auto r = run_vinterp({program});
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("vinterp: VINTERP_OPTIONS: ", 0) == 0);
    CHECK(r.err.find("no-such-option") != std::string::npos);
  }
  SECTION("a bad value is an error that names the variable") {
    EnvironmentOptions env("--threads many");
    const auto r = run_vinterp({program});
    CHECK(r.exit_code == 1);
    CHECK(r.err.rfind("vinterp: VINTERP_OPTIONS: ", 0) == 0);
  }
  SECTION("a file name there is an error that names the variable") {
    EnvironmentOptions env(program);
    const auto r = run_vinterp({program});
    CHECK(r.exit_code == 1);
    CHECK(r.err.rfind("vinterp: VINTERP_OPTIONS: '" + program + "' is not an option", 0) == 0);
  }
  SECTION("blank is nothing") {
    EnvironmentOptions env("   ");
    CHECK(run_vinterp({program}).exit_code == 0);
  }
}

TEST_CASE("a NESL toolchain stand-in runs fused on another backend through VINTERP_OPTIONS",
          "[cli][environment]") {
  // The stand-in calls `vinterp -m 1048576 <job>_code` and reads stdout, as the NESL REPL does.
  ScratchDir scratch;
  const std::string standin = test_dir + "/nesl_toolchain_standin.sh";
  const std::string quicksort = examples_dir + "/quicksort.vcode";
  const std::string expected = run_vinterp({quicksort}).out;
  for (const auto& backend : backends()) {
    INFO(backend);
    EnvironmentOptions env("--backend " + backend + " -O --profile");
    const auto r = run_command({standin, vinterp, quicksort, scratch.path.string()});
    CHECK(r.exit_code == 0);
    CHECK(r.out == expected);
    CHECK(r.err.find("FUSED") != std::string::npos);
    if (backend != "cpu") CHECK(r.err.find("profile of backend " + backend) != std::string::npos);
  }
}

namespace {

// The trace's events, after checking the file is one JSON object in the trace-event format.
json read_trace(const std::string& path) {
  const json trace = json::parse(read_file(path));
  REQUIRE(trace.is_object());
  REQUIRE(trace.contains("traceEvents"));
  REQUIRE(trace["traceEvents"].is_array());
  return trace["traceEvents"];
}

struct Span {
  double start, end;
  std::string name, category;
  json args;
};

std::vector<Span> spans_of(const json& events, const std::string& category) {
  std::vector<Span> spans;
  for (const auto& e : events)
    if (e["ph"] == "X" && e["cat"] == category) {
      const double ts = e["ts"], dur = e["dur"];
      spans.push_back({ts, ts + dur, e["name"], e["cat"], e.value("args", json::object())});
    }
  return spans;
}

}  // namespace

TEST_CASE("vinterp --trace-json writes a timeline Perfetto opens", "[cli][trace-json]") {
  ScratchDir scratch;
  for (const auto& backend : backends()) {
    INFO(backend);
    const std::string path = scratch / "trace.json";
    // quicksort: recursive calls, vector instructions, memory that grows and shrinks.
    const std::string quicksort = examples_dir + "/quicksort.vcode";
    const auto r = run_vinterp({"--backend", backend, "--host-threshold", "0", "--trace-json", path,
                                "-O", quicksort});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == run_vinterp({quicksort}).out);  // tracing changes nothing printed
    const json events = read_trace(path);
    for (const auto& e : events) {
      REQUIRE(e.contains("ph"));
      REQUIRE(e.contains("name"));
      if (e["ph"] == "X") {
        CHECK(e["ts"].is_number());
        CHECK(e["dur"].is_number());
        CHECK(e["dur"].get<double>() >= 0);
      }
    }
    const auto functions = spans_of(events, "function");
    auto instructions = spans_of(events, "instruction");
    const auto short_runs = spans_of(events, "instructions");  // runs of short instructions
    const auto phases = spans_of(events, "phase");
    REQUIRE(functions.size() > 2);
    // Which instructions get a span of their own depends on their time (and so on the machine's
    // speed and load, trace_json.hpp): count the instructions the spans and runs cover.
    REQUIRE(!instructions.empty());
    std::size_t covered = instructions.size();
    for (const auto& run : short_runs) covered += run.args["instructions"].get<std::size_t>();
    REQUIRE(covered > 10);
    std::set<std::string> phase_names;
    for (const auto& p : phases) phase_names.insert(p.name);
    CHECK(phase_names == std::set<std::string>{"load", "optimize (-O)"});
    std::set<std::string> opcodes;
    bool launches = false;
    for (const auto& run : short_runs) {
      CHECK(run.args["instructions"].get<std::size_t>() >= 2);
      for (const auto& item : run.args["opcodes"].items()) opcodes.insert(item.key());
      launches = launches || run.args.contains("launches");
    }
    for (const auto& ins : instructions) {
      CHECK(ins.args.contains("opcode"));
      CHECK(ins.args.contains("elements"));
      CHECK(ins.args.contains("function"));
      CHECK(ins.args.contains("line"));
      opcodes.insert(ins.args["opcode"].get<std::string>());
      launches = launches || ins.args.contains("launches");
    }
    CHECK(opcodes.count("FUSED") == 1);
    CHECK(opcodes.count("CALL") == 1);
    CHECK(launches == (backend != "cpu"));
    // Every instruction lies inside a function span (the entry function's at least).
    instructions.insert(instructions.end(), short_runs.begin(), short_runs.end());
    for (const auto& ins : instructions) {
      bool inside = false;
      for (const auto& f : functions) inside = inside || (f.start <= ins.start && ins.end <= f.end);
      CHECK(inside);
    }
    // Function spans nest: two spans either hold one another or do not meet.
    for (const auto& a : functions)
      for (const auto& b : functions) {
        const bool apart = a.end <= b.start || b.end <= a.start;
        const bool nested = (a.start <= b.start && b.end <= a.end) || (b.start <= a.start && a.end <= b.end);
        CHECK((apart || nested));
      }
    // The memory track.
    std::size_t counters = 0;
    bool nonzero = false;
    for (const auto& e : events)
      if (e["ph"] == "C") {
        ++counters;
        CHECK(e["name"] == "vector memory");
        const std::string key = backend == "cpu" ? "host bytes" : "device bytes";
        nonzero = nonzero || e["args"][key].get<std::uint64_t>() > 0;
      }
    CHECK(counters > 1);
    CHECK(nonzero);
  }
}

TEST_CASE("vinterp --trace-json: a failing run still leaves a whole trace", "[cli][trace-json]") {
  ScratchDir scratch;
  const std::string path = scratch / "trace.json";
  const auto r = run_vinterp({"--trace-json", path, "--max-call-depth", "50",
                              test_dir + "/../golden/deep_recursion.vcode"});
  CHECK(r.exit_code == 1);
  const json events = read_trace(path);
  CHECK(spans_of(events, "function").size() >= 50);
}

TEST_CASE("vinterp --trace-json: a file that cannot be written is an error before the run",
          "[cli][trace-json]") {
  const auto r = run_vinterp({"--trace-json", "/nonexistent-dir/trace.json", program});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "vinterp: --trace-json: cannot write /nonexistent-dir/trace.json\n");
}

// [shared]: where the shared programs are absent, this test is skipped (main.cpp).
TEST_CASE("vinterp --trace-json of a benchmark program at reduced size stays under 10 MB",
          "[cli][trace-json][shared]") {
  const std::string bh = shared_dir + "/neslgpu-bench/reduced/bh.r200.vcode";
  INFO(bh << " comes with ../shared");
  REQUIRE(fs::exists(bh));
  ScratchDir scratch;
  const std::string path = scratch / "bh.json";
  REQUIRE(run_vinterp({"--trace-json", path, bh}).exit_code == 0);
  CHECK(fs::file_size(path) < 10u * 1000 * 1000);
  const json events = read_trace(path);
  std::size_t counted = 0;  // instructions the spans stand for
  for (const auto& e : events)
    if (e["ph"] == "X" && e["cat"] == "instruction") ++counted;
    else if (e["ph"] == "X" && e["cat"] == "instructions") counted += e["args"]["instructions"].get<std::size_t>();
  CHECK(counted > 100000);  // every instruction is in some span
}
