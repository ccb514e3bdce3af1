// RAND and the generator behind it (spec/CVL.md §7).
#include <limits>
#include <vector>

#include "support.hpp"

namespace cvl_test {

TEST_CASE("the generator reproduces glibc random()", "[random]") {
  cvl::RandomStream stream;  // the default state equals srandom(1)
  CHECK(stream.next() == 1804289383);
  CHECK(stream.next() == 846930886);
  CHECK(stream.next() == 1681692777);
  CHECK(stream.next() == 1714636915);
  const std::pair<std::uint32_t, std::vector<std::int32_t>> seeds[] = {
      {1, {1804289383, 846930886, 1681692777, 1714636915}},
      {0, {1804289383, 846930886, 1681692777, 1714636915}},  // glibc maps seed 0 to 1
      {42, {71876166, 708592740, 1483128881, 907283241}},
      {static_cast<std::uint32_t>(-5), {1469203335, 1952330421, 2063378439, 796694348}},
      {123456789, {1965102536, 1639725855, 706684578, 1926601937}},
  };
  for (const auto& [seed, expected] : seeds) {
    INFO("seed " << seed);
    stream.seed(seed);
    for (std::int32_t value : expected) CHECK(stream.next() == value);
  }
}

TEST_CASE("drawing in bulk gives what drawing one at a time gives", "[random]") {
  // fill() runs its own loop from 62 draws on, in chunks of 1023 sums, then one or two by next()
  // discard() jumps from 4092 on (x^n modulo the characteristic polynomial)
  for (std::size_t n : {0, 1, 2, 61, 62, 63, 64, 1023, 1024, 1025, 1085, 1086, 4091, 4092, 5000,
                        100000, 3000001}) {
    INFO("n " << n);
    cvl::RandomStream bulk, single;
    bulk.seed(static_cast<std::uint32_t>(n) + 5);
    single.seed(static_cast<std::uint32_t>(n) + 5);
    for (int i = 0; i < 7; ++i) CHECK(bulk.next() == single.next());  // a ring index not at 0
    std::vector<std::int32_t> drawn(n);
    bulk.fill(drawn.data(), n);
    std::vector<std::int32_t> expected(n);
    for (auto& value : expected) value = single.next();
    CHECK(drawn == expected);
    bulk.fill(drawn.data(), std::min<std::size_t>(n, 70));  // the stream goes on from there
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 70); ++i) CHECK(drawn[i] == single.next());
    for (int i = 0; i < 40; ++i) CHECK(bulk.next() == single.next());
    bulk.discard(n);
    for (std::size_t i = 0; i < n; ++i) single.next();
    CHECK(bulk.next() == single.next());
  }
}

TEST_CASE("RAND of one bound equals the sequential stream", "[random]") {
  CVL_BACKEND(b);
  const std::int32_t min = std::numeric_limits<std::int32_t>::min();
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  // NESL's rand(c): the bound spread over the vector, a vector of one value on cvl-cpu (which
  // reads the bound once). 49 and 103 guard any version that divides by multiplying: with this
  // seed they give draws whose quotient by the bound's reciprocal comes out one too small.
  for (std::int32_t bound : {1, 2, 3, 7, 10, 49, 103, 1000, 65537, (1 << 30) - 1, 1 << 30,
                             (1 << 30) + 1, max - 1, max, -1, -5, -1000, min + 1, min}) {
    cvl::RandomStream stream, host;
    stream.seed(11);
    host.seed(11);
    Ints expected;
    for (int i = 0; i < 5000; ++i) expected.push_back(host.next() % bound);
    INFO("bound " << bound);
    const cvl::Vector bounds = b.distribute(ints(b, {bound}), segdes(b, {5000}));
    check_equal(to_ints(b, b.random(bounds, stream)), expected);
    CHECK(stream.next() == host.next());
  }
}

TEST_CASE("RAND takes one output per element in index order", "[random]") {
  CVL_BACKEND(b);
  cvl::RandomStream stream;
  // spec/CVL.md §7.2: the default state's RAND of (1000000 1000000 1000000 7 -7)
  CHECK(to_ints(b, b.random(ints(b, {1000000, 1000000, 1000000, 7, -7}), stream)) ==
        Ints{289383, 930886, 692777, 5, 1});
  stream.seed(1);
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  CHECK(to_ints(b, b.random(ints(b, {max, max}), stream)) == Ints{1804289383, 846930886});
  // the stream continues across calls; an empty RAND consumes nothing
  CHECK(b.random(ints(b, {}), stream).length == 0);
  CHECK(to_ints(b, b.random(ints(b, {max, max}), stream)) == Ints{1681692777, 1714636915});
  // INT_MIN and -1 bounds never trap: the draw is non-negative
  stream.seed(1);
  CHECK(to_ints(b, b.random(ints(b, {std::numeric_limits<std::int32_t>::min(), -1, 1}), stream)) ==
        Ints{1804289383, 0, 0});
}

TEST_CASE("a large RAND equals the sequential stream", "[random]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(5);
  Ints bounds = random_ints(300000, -1000, 1000, rng);
  for (auto& x : bounds)
    if (x == 0) x = 3;
  cvl::RandomStream stream, host;
  stream.seed(77);
  host.seed(77);
  Ints expected;
  for (std::int32_t bound : bounds) expected.push_back(host.next() % bound);
  check_equal(to_ints(b, b.random(ints(b, bounds), stream)), expected);
  CHECK(stream.next() == host.next());
}

}  // namespace cvl_test
