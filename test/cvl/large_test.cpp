// 10^7 elements: the sizes of the benchmarks (a quicksort's rank and pack, a long scan).
#include "support.hpp"

namespace cvl_test {
namespace {

constexpr std::size_t kLarge = 10'000'000;

}  // namespace

TEST_CASE("+_SCAN and +_REDUCE INT over 10^7 elements", "[large][slow][scan]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(8);
  const Ints v = random_ints(kLarge, -1000000000, 1000000000, rng);  // the sums wrap many times
  Ints expected(kLarge);
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < kLarge; ++i) {
    expected[i] = static_cast<std::int32_t>(sum);
    sum += static_cast<std::uint32_t>(v[i]);
  }
  const cvl::Segdes sd = segdes(b, {static_cast<std::int32_t>(kLarge)});
  check_equal(to_ints(b, b.scan(Op::PlusScan, ints(b, v), sd)), expected);
  CHECK(to_ints(b, b.reduce(Op::PlusReduce, ints(b, v), sd)) ==
        Ints{static_cast<std::int32_t>(sum)});
}

TEST_CASE("RANK_UP INT of 10^7 elements is a stable sorting permutation", "[large][slow][rank]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(9);
  const Ints v = random_ints(kLarge, -5000000, 5000000, rng);  // with ties
  const Ints rank =
      to_ints(b, b.rank(Op::RankUp, ints(b, v), segdes(b, {static_cast<std::int32_t>(kLarge)})));
  REQUIRE(rank.size() == kLarge);
  // element_at[r] = the element ranked r: each rank exactly once, values non-decreasing,
  // equal values in index order.
  std::vector<std::int64_t> element_at(kLarge, -1);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < kLarge; ++i) {
    auto r = static_cast<std::size_t>(rank[i]);
    if (r >= kLarge || element_at[r] != -1)
      ++bad;
    else
      element_at[r] = static_cast<std::int64_t>(i);
  }
  REQUIRE(bad == 0);
  for (std::size_t r = 1; r < kLarge; ++r) {
    auto prev = static_cast<std::size_t>(element_at[r - 1]),
         cur = static_cast<std::size_t>(element_at[r]);
    if (v[prev] > v[cur] || (v[prev] == v[cur] && prev > cur)) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("PACK of 10^7 elements", "[large][slow][pack]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(10);
  const Ints v = random_ints(kLarge, -100, 100, rng);
  const Bools flags = random_bools(kLarge, 0.5, rng);
  Ints expected;
  for (std::size_t i = 0; i < kLarge; ++i)
    if (flags[i]) expected.push_back(v[i]);
  auto [data, sd] =
      b.pack(ints(b, v), bools(b, flags), segdes(b, {static_cast<std::int32_t>(kLarge)}));
  check_equal(to_ints(b, data), expected);
  CHECK(lengths_of(b, sd) == Ints{static_cast<std::int32_t>(expected.size())});
}

}  // namespace cvl_test

namespace cvl_test {

// Outputs past the last-level cache are written around it on x86-64 (streaming_fill.hpp): each
// segment's run starts at any alignment and ends anywhere, and every width is filled.
TEST_CASE("DIST of 10^7 elements over segments of odd lengths", "[large][slow][dist]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(12);
  Ints lengths;
  for (std::size_t total = 0; total < kLarge;) {
    const auto n = static_cast<std::int32_t>(std::min<std::size_t>(rng() % 300000 + rng() % 3, kLarge - total));
    lengths.push_back(n);
    total += static_cast<std::size_t>(n);
  }
  lengths.push_back(0);
  const Ints values = random_ints(lengths.size(), -1000000, 1000000, rng);
  std::vector<double> float_values(values.begin(), values.end());
  Ints expected_ints;
  std::vector<double> expected_floats;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    expected_ints.insert(expected_ints.end(), static_cast<std::size_t>(lengths[k]), values[k]);
    expected_floats.insert(expected_floats.end(), static_cast<std::size_t>(lengths[k]), float_values[k]);
  }
  check_equal(to_ints(b, b.distribute(ints(b, values), segdes(b, lengths))), expected_ints);
  CHECK(to_floats(b, b.distribute(floats(b, float_values), segdes(b, lengths))) == expected_floats);
}

}  // namespace cvl_test
