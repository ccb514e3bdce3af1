// The unchecked gather and scatter loops and their check (index_loops.hpp): every length around
// the unrolling, a gather into its own index memory, a scatter's later element winning a
// collision, and indices at the bound, past it and negative.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "families/index_loops.hpp"

namespace cvl::cpu {
namespace {

TEST_CASE("all_below finds any index at or past the bound, a negative one included",
          "[index_loops]") {
  for (std::size_t n : {0, 1, 3, 4, 5, 17, 256}) {
    std::vector<std::int32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    CHECK(all_below(idx.data(), n, static_cast<std::uint32_t>(n)));
    if (n == 0) continue;
    CHECK_FALSE(all_below(idx.data(), n, static_cast<std::uint32_t>(n - 1)));
    for (std::int32_t bad : {static_cast<std::int32_t>(n), -1, std::numeric_limits<std::int32_t>::min()}) {
      for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
        std::vector<std::int32_t> with = idx;
        with[at] = bad;
        INFO("n " << n << ", index " << bad << " at " << at);
        CHECK_FALSE(all_below(with.data(), n, static_cast<std::uint32_t>(n)));
      }
    }
  }
}

TEST_CASE("gather_unchecked and scatter_unchecked move every element, in order",
          "[index_loops]") {
  std::mt19937 random(5);
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256}) {
    INFO("n " << n);
    std::vector<std::uint64_t> values(n + 10);
    for (auto& v : values) v = random();
    std::vector<std::int32_t> idx(n);
    for (auto& i : idx) i = static_cast<std::int32_t>(random() % values.size());
    std::vector<std::uint64_t> out(n);
    gather_unchecked(values.data(), idx.data(), out.data(), n);
    for (std::size_t j = 0; j < n; ++j) CHECK(out[j] == values[static_cast<std::size_t>(idx[j])]);
    // Into the index's own memory (a gather reusing its index for the result): 4-byte elements.
    std::vector<std::uint32_t> narrow(values.size());
    for (std::size_t i = 0; i < narrow.size(); ++i) narrow[i] = static_cast<std::uint32_t>(values[i]);
    std::vector<std::int32_t> in_place = idx;
    gather_unchecked(narrow.data(), in_place.data(), reinterpret_cast<std::uint32_t*>(in_place.data()), n);
    for (std::size_t j = 0; j < n; ++j)
      CHECK(static_cast<std::uint32_t>(in_place[j]) == narrow[static_cast<std::size_t>(idx[j])]);
    // Scattered: where two elements go to one place, the later one stays.
    std::vector<std::uint64_t> scattered(values.size(), 0), want(values.size(), 0);
    scatter_unchecked(values.data(), idx.data(), scattered.data(), n);
    for (std::size_t j = 0; j < n; ++j) want[static_cast<std::size_t>(idx[j])] = values[j];
    CHECK(scattered == want);
  }
}

}  // namespace
}  // namespace cvl::cpu
