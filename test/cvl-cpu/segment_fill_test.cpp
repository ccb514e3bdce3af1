// fill_by_segment (segment_fill.hpp), which DIST and INDEX use unfused and in FUSED: every
// position of a range gets its segment's value at its offset, over segments around the short
// length, ranges that start and end inside segments, and output memory that nothing past the
// range may touch.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "segment_fill.hpp"

namespace cvl::cpu {
namespace {

// The value the test expects at offset t of segment k: unique per position.
std::int64_t model(std::size_t k, std::size_t t) {
  return static_cast<std::int64_t>(k) * 1000 + static_cast<std::int64_t>(t);
}

TEST_CASE("fill_by_segment writes each position its segment's value at its offset",
          "[segment_fill]") {
  std::mt19937_64 random(3);
  // max_length 0 stands for segments all 3 long, a descriptor that says so (uniform)
  for (int max_length : {0, 1, 8, 9, 20, 70}) {
    std::uniform_int_distribution<int> length_of(0, max_length);
    std::vector<SegOffset> offsets{0};
    while (offsets.size() < 400)
      offsets.push_back(offsets.back() + (max_length == 0 ? 3 : length_of(random)));
    SegView sd;
    if (max_length == 0) sd.uniform = 3;
    sd.segments = offsets.size() - 1;
    sd.total = offsets.back();
    sd.offsets = offsets.data();
    if (sd.total == 0) continue;
    std::uniform_int_distribution<std::size_t> position(0, sd.total);
    for (int trial = 0; trial < 300; ++trial) {
      std::size_t lo = position(random), hi = position(random);
      if (lo > hi) std::swap(lo, hi);
      if (lo == sd.total) continue;
      INFO("segments " << (sd.uniform ? "all 3" : "up to " + std::to_string(max_length)) << " long, range ["
                       << lo << ", " << hi << ")");
      constexpr std::int64_t kUntouched = -1;
      std::vector<std::int64_t> out(hi - lo + 2 * kShortSegment, kUntouched);
      std::int64_t* range = out.data() + kShortSegment;  // guards on both sides
      std::size_t short_values = 0;
      fill_by_segment(
          range, sd, sd.segment_of(lo), lo, hi,
          [&](std::size_t k, std::size_t t) {
            ++short_values;
            return model(k, t);
          },
          [&](std::size_t k, std::size_t from, std::size_t to) {
            for (std::size_t pos = from; pos < to; ++pos)
              range[pos - lo] = model(k, pos - sd.start(k));
          });
      std::vector<std::int64_t> expected(out.size(), kUntouched);
      for (std::size_t pos = lo; pos < hi; ++pos) {
        const std::size_t k = sd.segment_of(pos);
        expected[pos - lo + kShortSegment] = model(k, pos - sd.start(k));
      }
      CHECK(out == expected);
      if (sd.uniform > 0)
        CHECK(short_values == 0);  // lengths all alike: the caller's loop only
      else if (max_length <= static_cast<int>(kShortSegment) && hi - lo >= 2 * kShortSegment)
        CHECK(short_values > 0);  // the short path ran
    }
  }
}

}  // namespace
}  // namespace cvl::cpu
