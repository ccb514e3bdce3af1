// Tests of the differential fuzzer's parts that need no interpreter run: the program generator
// (valid VCODE, every opcode it promises, deterministic), the known-differences file and the
// minimizer.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "known_differences.hpp"
#include "minimize.hpp"
#include "program_generator.hpp"
#include "vcode/op.hpp"
#include "vcode/parser.hpp"
#include "vcode/verify.hpp"

namespace {

constexpr std::uint64_t programs = 400;

// Opcode counts over the first `programs` seeds (each program must parse and verify).
const std::map<vcode::Op, int>& op_counts() {
  static const std::map<vcode::Op, int> counts = [] {
    std::map<vcode::Op, int> c;
    for (std::uint64_t seed = 1; seed <= programs; ++seed) {
      const auto program = vcode::parse_program(fuzz::generate_program(seed).text, "fuzz.vcode");
      const auto problems = vcode::verify_program(program);
      if (!problems.empty()) FAIL("seed " << seed << ": " << problems.front());
      for (const auto& ins : program.code) ++c[ins.op];
    }
    return c;
  }();
  return counts;
}

}  // namespace

TEST_CASE("generated programs parse, verify and use every opcode but file I/O and FUSED") {
  // Not generated: what needs files or a terminal (the classic's results depend on them) and
  // FCODE's own instruction (fcode-opt makes those).
  const std::set<vcode::Op> not_generated = {vcode::Op::Read,      vcode::Op::FOpen, vcode::Op::FClose,
                                             vcode::Op::FRead,     vcode::Op::FReadChar, vcode::Op::FWrite,
                                             vcode::Op::Spawn,     vcode::Op::Fused, vcode::Op::Func,
                                             vcode::Op::EndIf};
  const auto& counts = op_counts();
  for (std::size_t i = 0; i < vcode::op_count; ++i) {
    const auto op = static_cast<vcode::Op>(i);
    if (not_generated.count(op)) continue;
    INFO(vcode::spelling(op));
    CHECK(counts.count(op) == 1);
  }
}

TEST_CASE("generated programs contain the special FLOAT values, empty segments and empty vectors") {
  std::string all;
  for (std::uint64_t seed = 1; seed <= programs; ++seed) all += fuzz::generate_program(seed).text;
  const std::vector<std::string> needles = {
      "1.0e400", "-1.0e400", "-0.0", "4.94065645841246544e-324", "CONST SEGDES ()", "CONST INT ()",
      "CONST FLOAT 0.0\nCONST FLOAT 0.0\n/ FLOAT", " 0 ", "EXIT", "CONST CHAR", "SRAND INT",
      std::string(fuzz::unordered_folds_marker)};
  for (const auto& needle : needles) {
    INFO(needle);
    CHECK(all.find(needle) != std::string::npos);
  }
}

TEST_CASE("a seed always gives the same program") {
  CHECK(fuzz::generate_program(12345).text == fuzz::generate_program(12345).text);
  CHECK(fuzz::generate_program(12345).text != fuzz::generate_program(12346).text);
}

TEST_CASE("the known-differences file reads, and its rules apply per variant") {
  const auto known = fuzz::load_known_differences(NESL_FUZZ_KNOWN_DIFFERENCES);
  const auto exact = fuzz::rules_for(known, "cpu-threads1", "FUNC MAIN\nRET\n");
  CHECK(exact.float_tolerance == 0.0);
  CHECK(exact.nan_sign_free);
  CHECK_FALSE(exact.skip);
  const auto threads = fuzz::rules_for(known, "fcode-cpu-threads-all", "FUNC MAIN\nRET\n");
  CHECK(threads.float_tolerance == Approx(1e-9));
  const std::string marked = std::string(fuzz::unordered_folds_marker) + "\nFUNC MAIN\nRET\n";
  CHECK(fuzz::rules_for(known, "cuda-emulated-device", marked).skip);
  CHECK_FALSE(fuzz::rules_for(known, "cuda-emulated-default", marked).skip);
  CHECK_FALSE(fuzz::rules_for(known, "cpu-threads-all", marked).skip);
}

TEST_CASE("a malformed known-differences file is an error naming the line") {
  const auto path = std::filesystem::temp_directory_path() / "fuzz_known_bad.txt";
  {
    std::ofstream out(path);
    out << "[x]\nvariants = *\nhandling = tolerance nothing\nwhy = because\n";
  }
  CHECK_THROWS_WITH(fuzz::load_known_differences(path.string()), Catch::Contains("fuzz_known_bad.txt:3"));
  {
    std::ofstream out(path);
    out << "[x]\nvariants = *\n";
  }
  CHECK_THROWS_WITH(fuzz::load_known_differences(path.string()), Catch::Contains("needs a handling"));
  std::filesystem::remove(path);
}

TEST_CASE("the minimizer keeps only the lines the failure needs") {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "line " + std::to_string(i) + "\n";
  auto fails = [](const std::string& t) {
    return t.find("line 7\n") != std::string::npos && t.find("line 33\n") != std::string::npos;
  };
  CHECK(fuzz::minimize_lines(text, fails) == "line 7\nline 33\n");
}
