// Output comparison for the corpus runner; see compare.hpp and ../shared/README.md.
#include "compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace corpus {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits at single spaces, keeping empty pieces, so that spacing differences are differences.
std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t start = 0;
  for (;;) {
    std::size_t space = line.find(' ', start);
    if (space == std::string_view::npos) {
      tokens.push_back(line.substr(start));
      return tokens;
    }
    tokens.push_back(line.substr(start, space - start));
    start = space + 1;
  }
}

bool lines_match(std::string_view expected, std::string_view got, const CompareRules& rules) {
  if (expected == got) return true;
  auto e = split_tokens(expected);
  auto g = split_tokens(got);
  if (e.size() != g.size()) return false;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (!tokens_match(e[i], g[i], rules.float_tolerance, rules.nan_sign_free)) return false;
  return true;
}

// regress: NESL's test driver prints the test's name, then `........failed` if the check failed;
// the timer check fails when the timer reads exactly 0 (a fast machine, a coarse clock).
bool is_timer_result_line(std::string_view line) { return line == "timer" || line == "timer........failed"; }

}  // namespace

bool is_float_token(std::string_view t) {
  if (t == "inf" || t == "-inf" || t == "nan" || t == "-nan") return true;
  std::size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  // d.dddddddddddddde[+-]dd[d]
  if (i >= t.size() || !is_digit(t[i])) return false;
  ++i;
  if (i >= t.size() || t[i] != '.') return false;
  ++i;
  for (int k = 0; k < 14; ++k, ++i)
    if (i >= t.size() || !is_digit(t[i])) return false;
  if (i >= t.size() || t[i] != 'e') return false;
  ++i;
  if (i >= t.size() || (t[i] != '+' && t[i] != '-')) return false;
  ++i;
  std::size_t digits = 0;
  for (; i < t.size() && is_digit(t[i]); ++i) ++digits;
  return i == t.size() && digits >= 2 && digits <= 3;
}

bool tokens_match(std::string_view expected, std::string_view got, double float_tolerance,
                  bool nan_sign_free) {
  if (expected == got) return true;
  if (!is_float_token(expected) || !is_float_token(got)) return false;
  const double a = std::strtod(std::string(expected).c_str(), nullptr);
  const double b = std::strtod(std::string(got).c_str(), nullptr);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) && nan_sign_free;  // nan == -nan
  if (!(float_tolerance > 0.0)) return false;  // the bytes differ and no tolerance is allowed
  if (std::isinf(a) || std::isinf(b)) return a == b;
  // The sign of an exact zero does not depend on how a sum or product is grouped, so it must
  // agree even where the digits may differ (a +_REDUCE of one -0.0 is 0.0).
  if (a == 0.0 && b == 0.0) return std::signbit(a) == std::signbit(b);
  return std::fabs(a - b) <= float_tolerance * std::max(std::fabs(a), std::fabs(b));
}

bool is_timer_line(std::string_view line) {
  if (line.size() < 5 || line.substr(0, 2) != "( " || line.substr(line.size() - 2) != " )") return false;
  return is_float_token(line.substr(2, line.size() - 4));
}

std::vector<std::string_view> split_lines(std::string_view text, bool& unterminated_last) {
  std::vector<std::string_view> lines;
  unterminated_last = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) {
      lines.push_back(text.substr(start));
      unterminated_last = true;
      break;
    }
    lines.push_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

bool differs_only_in_unspecified(std::string_view expected, std::string_view got,
                                 std::size_t line_number, const CompareRules& rules) {
  auto tokens = [](std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
      std::size_t end = line.find(' ', i);
      if (end == std::string_view::npos) end = line.size();
      if (end > i) out.push_back(line.substr(i, end - i));
      i = end + 1;
    }
    return out;
  };
  const auto e = tokens(expected), g = tokens(got);
  if (e.size() != g.size()) return false;
  for (std::size_t t = 0; t < e.size(); ++t) {
    if (tokens_match(e[t], g[t], rules.float_tolerance, rules.nan_sign_free)) continue;
    bool free = false;
    for (const auto& u : rules.unspecified_tokens) free |= u.line == line_number && u.token == t;
    if (!free) return false;
  }
  return true;
}

Difference compare_output(std::string_view expected, std::string_view got, const CompareRules& rules) {
  bool expected_open = false, got_open = false;
  const auto e = split_lines(expected, expected_open);
  const auto g = split_lines(got, got_open);
  const std::size_t n = std::max(e.size(), g.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= e.size()) return {false, i + 1, "<end of output>", std::string(g[i])};
    if (i >= g.size()) return {false, i + 1, std::string(e[i]), "<end of output>"};
    if (lines_match(e[i], g[i], rules)) continue;
    if (rules.last_line_is_timer && i + 1 == e.size() && is_timer_line(e[i]) && is_timer_line(g[i])) continue;
    if (rules.timer_may_fail && is_timer_result_line(e[i]) && is_timer_result_line(g[i])) continue;
    if (!rules.unspecified_tokens.empty() && differs_only_in_unspecified(e[i], g[i], i + 1, rules)) continue;
    return {false, i + 1, std::string(e[i]), std::string(g[i])};
  }
  if (expected_open != got_open && !e.empty()) {
    const std::string last(e.back());
    return {false, e.size(), expected_open ? last + " <no newline at end>" : last,
            got_open ? std::string(g.back()) + " <no newline at end>" : std::string(g.back())};
  }
  return {};
}

CompareRules rules_for(std::string_view suite, std::string_view program, double float_tolerance) {
  CompareRules rules;
  rules.float_tolerance = float_tolerance;
  // ../shared/README.md: "in neslgpu-bench it is the last stdout line of every program except
  // muladddbg" (muladddbg prints random numbers instead of a time).
  if (suite == "neslgpu-bench" && !program.starts_with("muladddbg")) rules.last_line_is_timer = true;
  // ../shared/README.md: "in regress, other_test__timer and the timer line of the two whole-suite
  // programs may print `failed` when the timer reads 0".
  static constexpr std::array<std::string_view, 3> timer_programs = {
      "other_test__timer", "whole__testall", "whole__nesltest_dist"};
  if (suite == "regress" && std::find(timer_programs.begin(), timer_programs.end(), program) != timer_programs.end())
    rules.timer_may_fail = true;
  // corpus/fpermute_ops line 6 is FPERMUTE BOOL of (T T F) to (0 1 2) with flags (F T T):
  // position 0 is never written, so its value is unspecified (spec/VCODE.md §6.7); the classic
  // printed the stale T it found in memory.
  if (suite == "corpus" && program == "fpermute_ops") rules.unspecified_tokens.push_back({6, 1});
  return rules;
}

std::string suite_of_directory(const std::string& directory) {
  std::filesystem::path path = std::filesystem::absolute(directory).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // a trailing '/'
  const std::string name = path.filename().string();
  if (name == "reduced" && path.parent_path().filename() == "neslgpu-bench") return "neslgpu-bench";
  return name;
}

}  // namespace corpus
