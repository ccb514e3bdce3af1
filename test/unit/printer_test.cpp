#include <catch2/catch.hpp>

#include <filesystem>

#include "vcode/parser.hpp"
#include "vcode/printer.hpp"

namespace {

void check_round_trip(const vcode::Program& p) {
  std::string text = vcode::print_program(p);
  std::vector<std::string> warnings;
  vcode::Program again = vcode::parse_program(text, "printed.vcode", {&warnings});
  CHECK(again.same_code(p));
  CHECK(vcode::print_program(again) == text);
}

}  // namespace

TEST_CASE("print then parse gives the same program", "[printer]") {
  auto p = vcode::parse_program(
      "{ all constructs }\nFUNC MAIN1_1\nI INT\nO INT\nCONST INT 5\nCONST INT (1 -2)\n"
      "CONST INT STDOUT\nCONST FLOAT 0.1\nCONST FLOAT (1.0e400 -0.0 2.5e-300)\nCONST BOOL (T F)\n"
      "CONST SEGDES 3\nCONST SEGDES ()\nCONST CHAR \"two\nlines {x}\"\nCONST INT ()\n"
      "COPY 1 0\nPOP 2 1\nCPOP 1 1\n+ INT\n+_SCAN FLOAT\nSELECT BOOL\nFLOOR\n"
      "CONST BOOL T\nIF\nCALL G\nELSE\nCONST BOOL F\nIF\nENDIF\nENDIF\nRET\n"
      "FUNC G\nSRAND INT\nFREAD SEGDES\nEXIT\nRET\n",
      "in.vcode");
  check_round_trip(p);
}

// [shared]: where the corpus is absent, this test is skipped (main.cpp).
TEST_CASE("every program of the shared corpus round-trips", "[printer][corpus][shared]") {
  namespace fs = std::filesystem;
  fs::path shared = NESL_SHARED_DIR;
  INFO("the shared corpus: " << shared / "corpus");
  REQUIRE(fs::exists(shared / "corpus"));
  int checked = 0;
  for (const char* dir : {"corpus", "corpus-hand", "regress", "neslgpu-bench/reduced"}) {
    for (const auto& entry : fs::directory_iterator(shared / dir)) {
      if (entry.path().extension() != ".vcode") continue;
      INFO(entry.path());
      std::vector<std::string> warnings;
      check_round_trip(vcode::load_program(entry.path().string(), {&warnings}));
      ++checked;
    }
  }
  CHECK(checked > 200);
}
