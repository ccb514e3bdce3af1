// How the corpus runner decides that a program's output matches the expected output: exact bytes,
// except for the relaxations listed in ../shared/README.md (NaN signs, parallel float sums, timers).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace corpus {

// What may differ between expected and actual output. Everything not listed here is exact.
struct CompareRules {
  // Relative tolerance for float tokens (`%.14e`, `inf`, `nan`); 0 means the bytes must match.
  double float_tolerance = 0.0;
  // `nan` and `-nan` are equal (their sign depends on the C library build). The differential
  // fuzzer takes this from its known-differences file.
  bool nan_sign_free = true;
  // neslgpu-bench: the last stdout line is the program's timer, `( <float> )`; any float matches.
  bool last_line_is_timer = false;
  // regress timer programs: the line `timer` may read `timer........failed` (timer read 0).
  bool timer_may_fail = false;
  // Elements whose value the spec leaves unspecified (FPERMUTE positions that no flagged element
  // writes hold stale memory in the classic interpreter; we print 0/0.0/F). Each entry is a
  // 1-based stdout line and the 0-based token on it (token 0 is the opening parenthesis).
  struct Token {
    std::size_t line;
    std::size_t token;
  };
  std::vector<Token> unspecified_tokens;
};

// The first difference between two outputs; `equal` when there is none.
struct Difference {
  bool equal = true;
  std::size_t line = 0;   // 1-based line number of the first difference
  std::string expected;   // that line as expected (or a description such as "<end of output>")
  std::string got;        // that line as produced
};

// True for a token printed by `%.14e` (`-1.50000000000000e+00`) or an `inf`/`nan` spelling.
bool is_float_token(std::string_view token);

// Two tokens that are equal under `float_tolerance` (see CompareRules).
bool tokens_match(std::string_view expected, std::string_view got, double float_tolerance,
                  bool nan_sign_free = true);

// True for a line `( <float token> )`, the form of a timer value.
bool is_timer_line(std::string_view line);

// True when the lines differ only in the tokens `rules` marks unspecified for `line_number`.
bool differs_only_in_unspecified(std::string_view expected, std::string_view got,
                                 std::size_t line_number, const CompareRules& rules);

// Compares two line-oriented outputs under `rules`.
Difference compare_output(std::string_view expected, std::string_view got, const CompareRules& rules);

// Splits text at '\n'; a final line without '\n' is kept and marked in `unterminated_last`.
std::vector<std::string_view> split_lines(std::string_view text, bool& unterminated_last);

// Which relaxations apply to `program` in the test directory `suite` (the directory's name as
// classified by suite_of_directory).
CompareRules rules_for(std::string_view suite, std::string_view program, double float_tolerance);

// "neslgpu-bench" for …/neslgpu-bench and …/neslgpu-bench/reduced, "regress" for …/regress,
// otherwise the directory's own name.
std::string suite_of_directory(const std::string& directory);

}  // namespace corpus
