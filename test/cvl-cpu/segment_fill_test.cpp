// fill_by_segment (segment_fill.hpp), which DIST and INDEX use unfused and in FUSED: every
// position of a range gets its segment's value at its offset, over segments around the short
// length, ranges that start and end inside segments, and output memory that nothing past the
// range may touch.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "families/segment_fill.hpp"

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
    SegmentView sd;
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
      const std::size_t last = fill_by_segment(
          range, sd, sd.segment_of(lo), lo, hi,
          [&](std::int64_t* at, std::size_t k, std::size_t first) {
            ++short_values;
            for (std::size_t t = 0; t < kShortSegment; ++t) at[t] = model(k, first + t);
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
      // The last segment written starts at or before hi: the next range's first segment is a
      // walk on from it.
      CHECK(sd.start(last) <= hi);
      if (hi < sd.total) CHECK(next_segment_holding(sd, last, hi) == sd.segment_of(hi));
      if (sd.uniform > 0)
        CHECK(short_values == 0);  // lengths all alike: the caller's loop only
      else if (max_length <= static_cast<int>(kShortSegment) && hi - lo >= 2 * kShortSegment)
        CHECK(short_values > 0);  // the short path ran
    }
  }
}

TEST_CASE("fill_index gives the reference's values, wrapping as it does", "[segment_fill]") {
  std::mt19937_64 random(5);
  std::vector<SegOffset> offsets{0};
  while (offsets.size() < 3000) offsets.push_back(offsets.back() + random() % 12);
  SegmentView sd;
  sd.segments = offsets.size() - 1;
  sd.total = offsets.back();
  sd.offsets = offsets.data();
  std::vector<std::int32_t> starts(sd.segments), strides(sd.segments);
  for (std::size_t k = 0; k < sd.segments; ++k) {
    starts[k] = static_cast<std::int32_t>(random());  // anywhere, so that some wrap
    strides[k] = k % 3 == 0 ? static_cast<std::int32_t>(random()) : static_cast<std::int32_t>(random() % 9) - 4;
  }
  std::vector<std::int32_t> out(sd.total);
  const std::int32_t* s = starts.data();
  const std::int32_t* t = strides.data();
  fill_index(out.data(), sd, 0, 0, sd.total, s, t);
  for (std::size_t pos = 0; pos < sd.total; ++pos) {
    const std::size_t k = sd.segment_of(pos);
    INFO("position " << pos << ", segment " << k);
    REQUIRE(out[pos] == cvl_sem::index_value(starts[k], strides[k],
                                             static_cast<std::uint32_t>(pos - sd.start(k))));
  }
}

TEST_CASE("fill_dist and fill_index over segments all of one short length write each range exactly",
          "[segment_fill]") {
  std::mt19937_64 random(9);
  for (int u : {2, 3, 5, 8, 9}) {
    std::vector<SegOffset> offsets;
    for (SegOffset k = 0; k <= 500; ++k) offsets.push_back(k * u);
    SegmentView sd;
    sd.uniform = u;
    sd.segments = offsets.size() - 1;
    sd.total = offsets.back();
    sd.offsets = offsets.data();
    std::vector<std::int64_t> values(sd.segments);
    std::vector<std::int32_t> starts(sd.segments), strides(sd.segments);
    for (std::size_t k = 0; k < sd.segments; ++k) {
      values[k] = static_cast<std::int64_t>(random());
      starts[k] = static_cast<std::int32_t>(random());
      strides[k] = static_cast<std::int32_t>(random() % 2001) - 1000;
    }
    std::uniform_int_distribution<std::size_t> position(0, sd.total);
    for (int trial = 0; trial < 300; ++trial) {
      std::size_t lo = position(random), hi = position(random);
      if (lo > hi) std::swap(lo, hi);
      if (lo == hi) continue;
      INFO("segments all " << u << " long, range [" << lo << ", " << hi << ")");
      constexpr std::int64_t kUntouched = -1;
      std::vector<std::int64_t> dist(hi - lo + 2 * kShortSegment, kUntouched);
      std::vector<std::int32_t> index(dist.size(), static_cast<std::int32_t>(kUntouched));
      const std::size_t dist_last =
          fill_dist(dist.data() + kShortSegment, sd, sd.segment_of(lo), lo, hi, values.data(), false);
      const std::int32_t* s = starts.data();
      const std::int32_t* t = strides.data();
      const std::size_t index_last =
          fill_index(index.data() + kShortSegment, sd, sd.segment_of(lo), lo, hi, s, t);
      if (hi < sd.total) {
        CHECK(next_segment_holding(sd, dist_last, hi) == sd.segment_of(hi));
        CHECK(next_segment_holding(sd, index_last, hi) == sd.segment_of(hi));
      }
      std::vector<std::int64_t> want_dist(dist.size(), kUntouched);
      std::vector<std::int32_t> want_index(dist.size(), static_cast<std::int32_t>(kUntouched));
      for (std::size_t pos = lo; pos < hi; ++pos) {
        const std::size_t k = pos / static_cast<std::size_t>(u);
        want_dist[pos - lo + kShortSegment] = values[k];
        want_index[pos - lo + kShortSegment] = cvl_sem::index_value(
            starts[k], strides[k], static_cast<std::uint32_t>(pos - sd.start(k)));
      }
      CHECK(dist == want_dist);
      CHECK(index == want_index);
    }
  }
}

}  // namespace
}  // namespace cvl::cpu
