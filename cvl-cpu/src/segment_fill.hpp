// Writing one value per position, segment by segment: DIST and INDEX (fill_dist, fill_index),
// unfused and as FUSED's leaves. Built for short segments: bh's descriptors average 1 to 8
// elements a segment, where a loop per segment pays for its unpredictable exit on every
// segment. Where lengths differ, a segment of at most kShortSegment elements is written as
// kShortSegment values in one go, the excess overwritten by the segments after it; a longer one,
// or one too near the end of the range to write past its end, goes to the caller's loop for
// long pieces, as does every segment of a descriptor whose segments are all of one length.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cvl/scalar_semantics.hpp"
#include "parallel.hpp"
#include "streaming_fill.hpp"

namespace cvl::cpu {

inline constexpr std::size_t kShortSegment = 8;

// For every position pos in [lo, hi), of segment k: out[pos - lo] = value_at(k, pos - start of k)
// where the segment's piece in [lo, hi) is short, else long_piece(k, pos, end) for the piece
// [pos, end). `k` is the segment holding lo; out has hi - lo elements. value_at is called for
// kShortSegment offsets from the piece's first, whatever the piece's length.
template <class T, class ValueAt, class LongPiece>
void fill_by_segment(T* out, const SegView& sd, std::size_t k, std::size_t lo, std::size_t hi,
                     ValueAt&& value_at, LongPiece&& long_piece) {
  // Segments all of one length: the caller's loop, whose exit is then predicted every time and
  // which writes no excess (quickhull's INDEX over pairs ran 1.4x slower through the short path).
  const bool uniform = sd.uniform > 0;
  for (std::size_t pos = lo; pos < hi; ++k) {
    const std::size_t start = sd.start(k);
    const std::size_t end = std::min<std::size_t>(sd.start(k + 1), hi);
    if (!uniform && end - pos <= kShortSegment && hi - pos >= kShortSegment) {
      // Straight into the output: values gathered in an array first and copied were 3x slower
      // than the loop per segment (their wide load cannot take its data from the narrow stores)
      T* at = out + (pos - lo);
      const std::size_t first = pos - start;
      for (std::size_t t = 0; t < kShortSegment; ++t) at[t] = value_at(k, first + t);
    } else {
      long_piece(k, pos, end);
    }
    pos = end;
  }
}

// DIST over [lo, hi) (`k` the segment holding lo): out[pos - lo] = values[k] for pos in segment
// k; long pieces written around the cache where `streaming` (streaming_fill.hpp).
template <class Bits>
void fill_dist(Bits* out, const SegView& sd, std::size_t k, std::size_t lo, std::size_t hi,
               const Bits* values, bool streaming) {
  fill_by_segment(
      out, sd, k, lo, hi, [&](std::size_t segment, std::size_t) { return values[segment]; },
      [&](std::size_t segment, std::size_t from, std::size_t to) {
        fill_values(out + (from - lo), to - from, values[segment], streaming);
      });
}

// INDEX over [lo, hi) (`k` the segment holding lo): out[pos - lo] = starts[k] + strides[k] times
// the offset of pos in segment k, wrapping as the reference's repeated addition does.
template <class Starts, class Strides>
void fill_index(std::int32_t* out, const SegView& sd, std::size_t k, std::size_t lo, std::size_t hi,
                const Starts& starts, const Strides& strides) {
  fill_by_segment(
      out, sd, k, lo, hi,
      [&](std::size_t segment, std::size_t t) {
        return cvl_sem::index_value(starts[segment], strides[segment], static_cast<std::uint32_t>(t));
      },
      [&](std::size_t segment, std::size_t from, std::size_t to) {
        const std::int32_t start = starts[segment], stride = strides[segment];
        const auto first = static_cast<std::uint32_t>(from - sd.start(segment));
        const auto count = static_cast<std::uint32_t>(to - from);
        std::int32_t* piece = out + (from - lo);
        for (std::uint32_t t = 0; t < count; ++t)
          piece[t] = cvl_sem::index_value(start, stride, first + t);
      });
}

}  // namespace cvl::cpu
