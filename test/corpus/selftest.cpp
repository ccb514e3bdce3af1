// Unit tests of the corpus runner's comparison rules and process runner.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "compare.hpp"
#include "process.hpp"

using namespace corpus;

TEST_CASE("float tokens are the %.14e spellings and inf/nan") {
  CHECK(is_float_token("1.50000000000000e+00"));
  CHECK(is_float_token("-2.50000000000000e-01"));
  CHECK(is_float_token("1.00000000000000e+300"));
  CHECK(is_float_token("-0.00000000000000e+00"));
  CHECK(is_float_token("inf"));
  CHECK(is_float_token("-inf"));
  CHECK(is_float_token("nan"));
  CHECK(is_float_token("-nan"));
  CHECK_FALSE(is_float_token("1"));
  CHECK_FALSE(is_float_token("-12"));
  CHECK_FALSE(is_float_token("1.5"));
  CHECK_FALSE(is_float_token("1.5000000000000e+00"));    // 13 digits
  CHECK_FALSE(is_float_token("1.500000000000000e+00"));  // 15 digits
  CHECK_FALSE(is_float_token("1.50000000000000e+0"));
  CHECK_FALSE(is_float_token("1.50000000000000E+00"));
  CHECK_FALSE(is_float_token("T"));
  CHECK_FALSE(is_float_token("("));
  CHECK_FALSE(is_float_token(""));
  CHECK_FALSE(is_float_token("banana"));
}

TEST_CASE("nan and -nan are always equal") {
  CHECK(tokens_match("nan", "-nan", 0.0));
  CHECK(tokens_match("-nan", "nan", 0.0));
  CHECK(tokens_match("-nan", "nan", 1e-9));
  CHECK_FALSE(tokens_match("nan", "inf", 1e-9));
  CHECK_FALSE(tokens_match("nan", "0.00000000000000e+00", 1e-9));
  CHECK_FALSE(tokens_match("0.00000000000000e+00", "-0.00000000000000e+00", 1e-9));
  CHECK(tokens_match("-0.00000000000000e+00", "-0.00000000000000e+00", 1e-9));
}

TEST_CASE("float tolerance is relative and only for float tokens") {
  CHECK_FALSE(tokens_match("1.00000000000000e+00", "1.00000000000001e+00", 0.0));
  CHECK(tokens_match("1.00000000000000e+00", "1.00000000000001e+00", 1e-9));
  CHECK(tokens_match("-3.14159265358979e+05", "-3.14159265358980e+05", 1e-9));
  CHECK_FALSE(tokens_match("1.00000000000000e+00", "1.00000001000000e+00", 1e-9));
  CHECK_FALSE(tokens_match("1.00000000000000e+00", "-1.00000000000000e+00", 1e-9));
  CHECK(tokens_match("1.23456789012345e-200", "1.23456789012346e-200", 1e-9));
  // The sign of zero never depends on grouping: it must match under a tolerance too.
  CHECK_FALSE(tokens_match("-0.00000000000000e+00", "0.00000000000000e+00", 1e-9));
  CHECK_FALSE(tokens_match("-0.00000000000000e+00", "0.00000000000000e+00", 0.0));
  CHECK(tokens_match("inf", "inf", 1e-9));
  CHECK_FALSE(tokens_match("inf", "-inf", 1e-9));
  CHECK_FALSE(tokens_match("inf", "1.00000000000000e+308", 1e-9));
  CHECK_FALSE(tokens_match("100", "101", 0.5));  // integers are always exact
  CHECK_FALSE(tokens_match("T", "F", 1.0));
}

TEST_CASE("outputs compare line by line") {
  CompareRules exact;
  CompareRules tolerant;
  tolerant.float_tolerance = 1e-9;
  CHECK(compare_output("( 1 2 3 )\n", "( 1 2 3 )\n", exact).equal);
  CHECK(compare_output("", "", exact).equal);

  auto d = compare_output("( 1 2 3 )\n( 4 )\n", "( 1 2 3 )\n( 5 )\n", exact);
  CHECK_FALSE(d.equal);
  CHECK(d.line == 2);
  CHECK(d.expected == "( 4 )");
  CHECK(d.got == "( 5 )");

  d = compare_output("( 1 )\n", "( 1 )\n( 2 )\n", exact);
  CHECK_FALSE(d.equal);
  CHECK(d.line == 2);
  CHECK(d.expected == "<end of output>");

  d = compare_output("( 1 )\n( 2 )\n", "( 1 )\n", exact);
  CHECK_FALSE(d.equal);
  CHECK(d.got == "<end of output>");

  CHECK_FALSE(compare_output("( 1 )\n", "( 1 )", exact).equal);  // final newline matters
  CHECK_FALSE(compare_output("( 1 )", "( 1 )\n", exact).equal);
  CHECK_FALSE(compare_output("( 1 2 )\n", "( 1  2 )\n", tolerant).equal);  // spacing matters

  const char* e = "( 1.00000000000000e+00 nan 3 )\n";
  const char* g = "( 1.00000000000001e+00 -nan 3 )\n";
  CHECK_FALSE(compare_output(e, g, exact).equal);
  CHECK(compare_output(e, g, tolerant).equal);
  CHECK(compare_output("( nan )\n", "( -nan )\n", exact).equal);
  CHECK_FALSE(compare_output("( 1.00000000000000e+00 3 )\n", "( 1.00000000000000e+00 4 )\n", tolerant).equal);
}

TEST_CASE("timer lines") {
  CHECK(is_timer_line("( 1.26988000000000e-01 )"));
  CHECK(is_timer_line("( 0.00000000000000e+00 )"));
  CHECK_FALSE(is_timer_line("( 1 )"));
  CHECK_FALSE(is_timer_line("( 1.0e+00 )"));
  CHECK_FALSE(is_timer_line("( 1.00000000000000e+00 2.00000000000000e+00 )"));

  const auto bench = rules_for("neslgpu-bench", "qs.1000", 0.0);
  CHECK(bench.last_line_is_timer);
  CHECK_FALSE(rules_for("neslgpu-bench", "muladddbg", 0.0).last_line_is_timer);
  CHECK_FALSE(rules_for("corpus", "timer", 0.0).last_line_is_timer);

  const char* expected = "( 0 )\n( 1.26988000000000e-01 )\n";
  CHECK(compare_output(expected, "( 0 )\n( 3.50000000000000e-02 )\n", bench).equal);
  CHECK_FALSE(compare_output(expected, "( 1 )\n( 3.50000000000000e-02 )\n", bench).equal);
  CHECK_FALSE(compare_output(expected, "( 0 )\n( 35 )\n", bench).equal);  // still a float
  CHECK_FALSE(compare_output(expected, "( 0 )\n( 3.50000000000000e-02 )\n", CompareRules{}).equal);
  // Only the last line is a timer.
  CHECK_FALSE(compare_output("( 1.00000000000000e+00 )\n( 2.00000000000000e+00 )\n",
                             "( 9.00000000000000e+00 )\n( 2.00000000000000e+00 )\n", bench)
                  .equal);

  const auto regress_timer = rules_for("regress", "other_test__timer", 0.0);
  CHECK(regress_timer.timer_may_fail);
  CHECK(rules_for("regress", "whole__testall", 0.0).timer_may_fail);
  CHECK(rules_for("regress", "whole__nesltest_dist", 0.0).timer_may_fail);
  CHECK_FALSE(rules_for("regress", "other_test__spawn", 0.0).timer_may_fail);
  CHECK_FALSE(rules_for("corpus", "other_test__timer", 0.0).timer_may_fail);
  CHECK(compare_output("a\ntimer\nb\n", "a\ntimer........failed\nb\n", regress_timer).equal);
  CHECK_FALSE(compare_output("a\ntimer\nb\n", "a\ntimer........failed\nb\n", CompareRules{}).equal);
  CHECK_FALSE(compare_output("spawn\n", "spawn........failed\n", regress_timer).equal);
}

TEST_CASE("unspecified FPERMUTE positions: exactly one token of fpermute_ops") {
  const auto rules = rules_for("corpus", "fpermute_ops", 0.0);
  REQUIRE(rules.unspecified_tokens.size() == 1);
  CHECK(rules_for("corpus", "permute_ops", 0.0).unspecified_tokens.empty());
  const char* expected = "a\nb\nc\nd\ne\n( T T F )\n";
  CHECK(compare_output(expected, "a\nb\nc\nd\ne\n( F T F )\n", rules).equal);
  CHECK_FALSE(compare_output(expected, "a\nb\nc\nd\ne\n( F F F )\n", rules).equal);
  CHECK_FALSE(compare_output(expected, "a\nb\nc\nd\ne\n( F T F T )\n", rules).equal);
  CHECK_FALSE(compare_output("( T T F )\n", "( F T F )\n", rules).equal);  // only line 6
}

TEST_CASE("suites are recognised by directory name") {
  CHECK(suite_of_directory("/x/shared/neslgpu-bench") == "neslgpu-bench");
  CHECK(suite_of_directory("/x/shared/neslgpu-bench/") == "neslgpu-bench");
  CHECK(suite_of_directory("/x/shared/neslgpu-bench/reduced") == "neslgpu-bench");
  CHECK(suite_of_directory("/x/shared/regress") == "regress");
  CHECK(suite_of_directory("/x/shared/corpus") == "corpus");
  CHECK(suite_of_directory("/x/other/reduced") == "reduced");
}

TEST_CASE("processes: output, status, stdin, timeout") {
  auto r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "/", "/dev/null", 10);
  CHECK(r.launch_error.empty());
  CHECK(r.exited);
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(shell_status(r) == 3);

  r = run_process({"/bin/sh", "-c", "pwd"}, "/tmp", "/dev/null", 10);
  CHECK(r.out == std::filesystem::canonical("/tmp").string() + "\n");

  const auto input = std::filesystem::temp_directory_path() / ("corpus_selftest_" + std::to_string(getpid()));
  std::ofstream(input) << "hello\n";
  r = run_process({"/bin/cat"}, "/", input.string(), 10);
  CHECK(r.out == "hello\n");
  std::filesystem::remove(input);

  r = run_process({"/bin/sh", "-c", "kill -FPE $$"}, "/", "/dev/null", 10);
  CHECK_FALSE(r.exited);
  CHECK(r.signal == SIGFPE);
  CHECK(shell_status(r) == 136);

  r = run_process({"/bin/sh", "-c", "echo started; exec sleep 30"}, "/", "/dev/null", 0.5);
  CHECK(r.timed_out);
  CHECK(r.out == "started\n");
  CHECK(r.seconds < 10);

  r = run_process({"/nonexistent/program"}, "/", "/dev/null", 10);
  CHECK_FALSE(r.launch_error.empty());

  // Lots of output on both streams at once must not deadlock.
  r = run_process({"/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo 0123456789012345678901234567890123456789; "
                                    "echo abcdefghijabcdefghijabcdefghij >&2; i=$((i+1)); done"},
                  "/", "/dev/null", 30);
  CHECK(r.exited);
  CHECK(r.out.size() == 2000 * 41);
  CHECK(r.err.size() == 2000 * 31);
}
