// How --trace-json keeps a long run's file small: short instructions share a span, short calls
// fold into their caller's span, and whatever is written still nests. Times are made up, so
// these tests do not depend on the machine's speed.
#include "vm/trace_json.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using Clock = vm::TraceJson::Clock;
using namespace std::chrono_literals;

// Feeds a TraceJson instructions and calls at times given in ns after a fixed start.
class FakeRun {
 public:
  FakeRun() : path_("/tmp/trace_json_test." + std::to_string(getpid()) + ".json") {
    trace_.emplace(path_, "test");
    t0_ = Clock::now();
  }
  ~FakeRun() { std::remove(path_.c_str()); }

  // An instruction of `duration` that launched `launches` kernels.
  void instruction(std::string_view opcode, std::chrono::nanoseconds duration, int launches = 0) {
    vm::TraceJson::Instruction ins;
    ins.opcode = opcode;
    ins.text = std::string(opcode);
    ins.function = "main";
    ins.start = t0_ + now_;
    now_ += duration;
    ins.end = t0_ + now_;
    ins.before.kernel_launches = launches_;
    launches_ += launches;
    ins.after.kernel_launches = launches_;
    trace_->instruction(ins);
  }
  void call(std::string_view name) { trace_->enter_function(name, t0_ + now_); }
  void ret() { trace_->leave_function(t0_ + now_); }

  // The X events, once the file is complete.
  json spans() {
    trace_->finish(t0_ + now_);
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    const json trace = json::parse(text.str());
    json result = json::array();
    for (const auto& e : trace["traceEvents"])
      if (e["ph"] == "X") result.push_back(e);
    return result;
  }

 private:
  std::string path_;
  std::optional<vm::TraceJson> trace_;
  Clock::time_point t0_;
  std::chrono::nanoseconds now_{0};
  std::uint64_t launches_ = 0;
};

std::vector<json> of_category(const json& spans, const std::string& category) {
  std::vector<json> result;
  for (const auto& e : spans)
    if (e["cat"] == category) result.push_back(e);
  return result;
}

// Instructions the spans stand for, one by one or counted.
std::size_t instructions_covered(const json& spans) {
  std::size_t n = of_category(spans, "instruction").size();
  for (const auto& e : of_category(spans, "instructions")) n += e["args"]["instructions"].get<std::size_t>();
  return n;
}

// Any two spans are disjoint or one holds the other: what a timeline viewer can draw.
bool nested(const json& spans) {
  const double slack = 1e-6;
  for (const auto& a : spans)
    for (const auto& b : spans) {
      const double a0 = a["ts"], a1 = a0 + a["dur"].get<double>();
      const double b0 = b["ts"], b1 = b0 + b["dur"].get<double>();
      const bool disjoint = a1 <= b0 + slack || b1 <= a0 + slack;
      const bool a_in_b = b0 <= a0 + slack && a1 <= b1 + slack;
      const bool b_in_a = a0 <= b0 + slack && b1 <= a1 + slack;
      if (!(disjoint || a_in_b || b_in_a)) return false;
    }
  return true;
}

constexpr auto fast = 100ns;
constexpr auto slow = 50us;

}  // namespace

TEST_CASE("trace-json: short instructions in a row share one span; a long one has its own",
          "[trace-json]") {
  FakeRun run;
  for (int i = 0; i < 5; ++i) run.instruction("COPY", fast);
  run.instruction("+", slow);
  run.instruction("POP", fast);  // alone between long ones: written as itself
  run.instruction("*", slow);
  const json spans = run.spans();
  const auto runs = of_category(spans, "instructions");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["name"] == "5 short instructions");
  CHECK(runs[0]["args"]["opcodes"] == json{{"COPY", 5}});
  CHECK(of_category(spans, "instruction").size() == 3);
  CHECK(instructions_covered(spans) == 8);
  CHECK(nested(spans));
}

TEST_CASE("trace-json: a short call of short instructions folds into its caller's span",
          "[trace-json]") {
  FakeRun run;
  run.call("main");
  for (int k = 0; k < 100; ++k) {
    run.instruction("CALL", fast);
    run.call("leaf");
    run.instruction("+", fast);
    run.instruction("RET", fast);
    run.ret();
  }
  run.instruction("RET", fast);
  run.ret();
  const json spans = run.spans();
  // main ran 30 us in all: no more than 50 us, so it folds into the outermost span too.
  CHECK(of_category(spans, "function").empty());
  const auto runs = of_category(spans, "instructions");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["args"]["calls"] == json{{"leaf", 100}, {"main", 1}});
  CHECK(instructions_covered(spans) == 301);
}

TEST_CASE("trace-json: a call with a long instruction shows, and its caller's span splits around it",
          "[trace-json]") {
  FakeRun run;
  run.call("main");
  run.instruction("COPY", fast);
  run.instruction("CALL", fast);
  run.call("short");
  run.instruction("RET", fast);
  run.ret();
  run.instruction("CALL", fast);
  run.call("long");
  run.instruction("POP", fast);
  run.instruction("+", slow);
  run.instruction("RET", fast);
  run.ret();
  run.instruction("COPY", fast);
  run.instruction("RET", fast);
  run.ret();
  const json spans = run.spans();
  std::vector<std::string> functions;
  for (const auto& f : of_category(spans, "function")) functions.push_back(f["name"]);
  std::sort(functions.begin(), functions.end());
  CHECK(functions == std::vector<std::string>{"long", "main"});
  CHECK(instructions_covered(spans) == 9);
  CHECK(nested(spans));
  // Before the long call: COPY, CALL, (short: RET), CALL as one span that counts the call.
  bool counted_short = false;
  for (const auto& r : of_category(spans, "instructions"))
    if (r["args"].contains("calls")) counted_short = r["args"]["calls"] == json{{"short", 1}};
  CHECK(counted_short);
}

TEST_CASE("trace-json: a long call of short instructions shows as a function", "[trace-json]") {
  FakeRun run;
  run.call("loop");
  for (int i = 0; i < 1000; ++i) run.instruction("+", fast);  // 100 us
  run.instruction("RET", fast);
  run.ret();
  const json spans = run.spans();
  REQUIRE(of_category(spans, "function").size() == 1);
  CHECK(instructions_covered(spans) == 1001);
  CHECK(nested(spans));
}

TEST_CASE("trace-json: a shared span sums the backend's work", "[trace-json]") {
  FakeRun run;
  run.instruction("+", fast, 1);
  run.instruction("SCAN", fast, 2);
  run.instruction("COPY", fast);
  const auto runs = of_category(run.spans(), "instructions");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["args"]["launches"] == 3);
}

TEST_CASE("trace-json: calls still open at the end are closed and written", "[trace-json]") {
  FakeRun run;
  run.call("main");
  run.call("inner");
  run.instruction("+", fast);
  const json spans = run.spans();
  CHECK(of_category(spans, "function").size() == 2);
  CHECK(instructions_covered(spans) == 1);
  CHECK(nested(spans));
}

TEST_CASE("trace-json: on a slow machine the trace coarsens as it grows, so its size stays bounded",
          "[trace-json]") {
  // Every instruction takes 3 us, just over the first threshold: without coarsening each would
  // have its own span. The thresholds double after every events_per_coarsening events.
  constexpr std::size_t step = vm::TraceJson::events_per_coarsening;
  FakeRun run;
  for (int i = 0; i < 100000; ++i) run.instruction("+", 3us);
  const json spans = run.spans();
  CHECK(instructions_covered(spans) == 100000);
  CHECK(of_category(spans, "instruction").size() >= step - 2);  // detailed at first
  CHECK(spans.size() < step + 2);
}

TEST_CASE("trace-json: calls just over the call threshold fold once the trace has grown",
          "[trace-json]") {
  constexpr std::size_t step = vm::TraceJson::events_per_coarsening;
  FakeRun run;
  for (int k = 0; k < 20000; ++k) {  // each call: 60 us of short instructions
    run.call("leaf");
    for (int i = 0; i < 39; ++i) run.instruction("+", 1500ns);
    run.instruction("RET", 1500ns);
    run.ret();
  }
  const json spans = run.spans();
  const auto functions = of_category(spans, "function").size();
  CHECK(functions > 0);
  CHECK(functions < step);
  CHECK(instructions_covered(spans) == 800000);
}
