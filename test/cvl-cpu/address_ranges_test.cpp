// AddressRanges against a model that marks each unit one by one: after any sequence of adds and
// removes the ranges cover exactly the marked units, touching ranges are merged, the byte count
// agrees, remove reports the lowest unit it took, and overlap counts the marked units.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "memory/address_ranges.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kUnits = 64;

void check_matches(const AddressRanges& ranges, const std::vector<bool>& marked) {
  std::vector<bool> covered(kUnits, false);
  std::size_t previous_end = SIZE_MAX;
  for (auto [start, length] : ranges.all()) {
    REQUIRE(length > 0);
    REQUIRE(start + length <= kUnits);
    CHECK(start != previous_end);  // touching neighbours are one range
    for (std::size_t u = start; u < start + length; ++u) covered[u] = true;
    previous_end = start + length;
  }
  CHECK(covered == marked);
  CHECK(ranges.bytes() == static_cast<std::size_t>(std::count(marked.begin(), marked.end(), true)));
}

}  // namespace

TEST_CASE("address ranges: adds merge neighbours, removes split, as a unit-by-unit model says",
          "[cpu][cache]") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    AddressRanges ranges;
    std::vector<bool> marked(kUnits, false);
    for (int step = 0; step < 40; ++step) {
      const std::size_t from = random() % kUnits;
      const std::size_t length = random() % (kUnits - from + 1);
      INFO("trial " << trial << " step " << step << ": [" << from << ", " << from + length << ")");
      // Overlap, before the change.
      std::size_t marked_inside = 0, lowest = SIZE_MAX;
      for (std::size_t u = from; u < from + length; ++u)
        if (marked[u]) {
          ++marked_inside;
          lowest = std::min(lowest, u);
        }
      CHECK(ranges.overlap(from, length) == marked_inside);
      if (random() % 2 == 0) {
        // The arena adds only what is not there already: add the unmarked runs.
        for (std::size_t u = from; u < from + length;) {
          if (marked[u]) {
            ++u;
            continue;
          }
          std::size_t end = u;
          while (end < from + length && !marked[end]) marked[end++] = true;
          ranges.add(u, end - u);
          u = end;
        }
      } else {
        CHECK(ranges.remove(from, length) == lowest);
        for (std::size_t u = from; u < from + length; ++u) marked[u] = false;
      }
      check_matches(ranges, marked);
    }
  }
}

}  // namespace cvl::cpu
