// speculation::LengthGuesses, the policy behind cvl-cuda's guessed lengths: host-only, so tested
// here without a GPU.
#include "cvl_cuda/length_guesses.hpp"

#include <catch2/catch.hpp>

using cvl::speculation::LengthGuesses;

namespace {
constexpr std::uint64_t kNoLimit = 0;
constexpr std::size_t kMin = LengthGuesses::kMinimumGuess;
}  // namespace

TEST_CASE("a site's first guess is the largest length met, rounded up to a power of two",
          "[length-guesses]") {
  LengthGuesses g;
  CHECK(g.guess(7, kNoLimit) == kMin);
  g.record(LengthGuesses::kNoSite, 1'000'000);
  CHECK(g.guess(7, kNoLimit) == 1'048'576);
}

TEST_CASE("a steady site is guessed a quarter above the most it counted", "[length-guesses]") {
  LengthGuesses g;
  g.record(3, 800'000);
  g.record(3, 500'000);
  const std::size_t guess = g.guess(3, kNoLimit);
  CHECK(guess >= 1'000'000);
  CHECK(guess < 1'000'000 + kMin);
  CHECK(guess % kMin == 0);
}

TEST_CASE("a growing site is guessed one step further", "[length-guesses]") {
  LengthGuesses g;
  std::size_t n = 1000;
  for (int level = 0; level < 12; ++level) {
    const std::size_t guess = g.guess(5, kNoLimit);
    if (level >= 2) CHECK(guess >= n);  // the doubling count fits its guess
    g.record(5, n);
    n *= 2;
  }
  CHECK(g.guess(5, kNoLimit) < 3 * n / 2 + kMin);  // and the guess stays near the next count
}

TEST_CASE("a count met again (a region run again, a function called twice) is one level",
          "[length-guesses]") {
  LengthGuesses g;
  g.record(9, 10'000);
  g.record(9, 20'000, true);  // broke its guess: the region runs again and counts it again
  g.record(9, 20'000);
  CHECK(g.guess(9, kNoLimit) >= 40'000);  // still seen doubling
  g.record(9, 40'000);
  g.record(9, 40'000);
  CHECK(g.guess(9, kNoLimit) >= 80'000);
  g.record(9, 30'000, true);  // a broken count is replaced by the next one, not a level
  g.record(9, 80'000);
  CHECK(g.guess(9, kNoLimit) >= 160'000);
}

TEST_CASE("no guess past the share of the memory limit or the longest vector",
          "[length-guesses]") {
  LengthGuesses g;
  g.record(1, 1'000'000);
  CHECK(g.guess(1, 1'000'000 * 8 * LengthGuesses::kShareOfMemory) == 0);
  CHECK(g.guess(1, 2'000'000 * 8 * LengthGuesses::kShareOfMemory) > 0);
  g.record(2, 1'000'000'000);
  g.record(2, 2'000'000'000);
  CHECK(g.guess(2, kNoLimit) == 0);
}
