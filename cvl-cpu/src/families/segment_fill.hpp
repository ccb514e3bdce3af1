// Writing one value per position, segment by segment: DIST and INDEX (fill_dist, fill_index),
// unfused and as FUSED's leaves. Built for short segments: bh's descriptors average 1 to 8
// elements a segment, where a loop per segment pays for its unpredictable exit on every
// segment. Where lengths differ, a segment of at most kShortSegment elements is written as
// kShortSegment values in one go, the excess overwritten by the segments after it; a longer one,
// or one too near the end of the range to write past its end, goes to the caller's loop for
// long pieces, as does every segment of a descriptor whose segments are all of one length,
// unless that length is short: then each segment is written exactly (fill_uniform_short).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cvl/scalar_semantics.hpp"
#include "threads/parallel.hpp"
#include "memory/streaming_fill.hpp"

namespace cvl::cpu {

inline constexpr std::size_t kShortSegment = 8;

// For every position pos in [lo, hi), of segment k: short_piece(at, k, first) writes at[t] for
// t < kShortSegment, the values at offsets first + t of segment k, where the segment's piece in
// [lo, hi) is short (whatever its length: the excess is overwritten after); else long_piece(k,
// pos, end) writes the piece [pos, end). `k` is the segment holding lo; out has hi - lo elements.
// Returns the last segment written (k when none): it starts at or before hi, so that the
// segment holding hi is a short walk from it (next_segment_holding).
template <class T, class View, class ShortPiece, class LongPiece>
std::size_t fill_by_segment(T* out, const View& sd, std::size_t k, std::size_t lo, std::size_t hi,
                     ShortPiece&& short_piece, LongPiece&& long_piece) {
  // The offsets in a local: the pieces' wide stores may alias anything, so a pointer read
  // through `sd` would be read again after each of them.
  const auto* const offsets = sd.offsets;
  const std::size_t first = k;
  std::size_t pos = lo;
  // Segments all of one length (short ones are fill_uniform_short's) go to the caller's loop,
  // whose exit is then predicted every time and which writes no excess. Otherwise, while kShortSegment positions remain, a short segment is one short piece.
  if (sd.uniform <= 0) {
    while (hi - pos >= kShortSegment) {
      const std::size_t start = offsets[k], end = offsets[k + 1];
      if (end - pos <= kShortSegment) {
        // Straight into the output: values gathered in an array first and copied were slower
        // than the loop per segment (their wide load cannot take its data from the narrow stores)
        short_piece(out + (pos - lo), k, pos - start);
        pos = end;
      } else {
        const std::size_t to = std::min<std::size_t>(end, hi);
        long_piece(k, pos, to);
        pos = to;
      }
      ++k;
    }
  }
  for (; pos < hi; ++k) {
    const std::size_t end = std::min<std::size_t>(offsets[k + 1], hi);
    long_piece(k, pos, end);
    pos = end;
  }
  return k == first ? k : k - 1;
}

// The segment holding position `pos` (< sd.total), walking on from segment `k`, which starts at
// or before it: a fill's next block starts where the last one ended, a segment or a few empty
// ones on, where a binary search over all the offsets would cost a cache miss a step.
template <class View>
std::size_t next_segment_holding(const View& sd, std::size_t k, std::size_t pos) {
  while (static_cast<std::size_t>(sd.offsets[k + 1]) <= pos) ++k;
  return k;
}

// Segments all of one short length `u` (pairs: quickhull's points, one copy for each half of the
// hull): piece(at, k, first, count) writes at[t] for t < count, offsets first + t of segment k,
// for each segment's piece of [lo, hi). The whole pairs between the cut ends get a count the
// compiler knows, so that their loop has no loop inside it; a call per piece of the caller's
// loop for long pieces cost more than the values it wrote.
template <class T, class Piece>
void fill_uniform_short(T* out, std::size_t u, std::size_t lo, std::size_t hi, Piece&& piece) {
  std::size_t pos = lo, k = lo / u;
  if (const std::size_t first = lo - k * u; first != 0) {
    const std::size_t count = std::min(hi - pos, u - first);
    piece(out, k, first, count);
    pos += count;
    ++k;
  }
  if (u == 2) {
    for (; hi - pos >= 2; pos += 2, ++k)
      piece(out + (pos - lo), k, std::size_t{0}, std::integral_constant<std::size_t, 2>{});
  } else {
    for (; hi - pos >= u; pos += u, ++k) piece(out + (pos - lo), k, std::size_t{0}, u);
  }
  if (pos < hi) piece(out + (pos - lo), k, std::size_t{0}, hi - pos);
}

// Whether fill_uniform_short writes a descriptor's segments.
template <class View>
bool short_and_uniform(const View& sd) {
  return sd.uniform > 1 && static_cast<std::size_t>(sd.uniform) <= kShortSegment;
}

// DIST over [lo, hi) (`k` the segment holding lo): out[pos - lo] = values[k] for pos in segment
// k; long pieces written around the cache where `streaming` (streaming_fill.hpp).
// Returns fill_by_segment's last segment written (a uniform descriptor's: the one holding lo).
template <class Bits, class View>
std::size_t fill_dist(Bits* out, const View& sd, std::size_t k, std::size_t lo,
                      std::size_t hi, const Bits* values, bool streaming) {
  if (short_and_uniform(sd)) {
    fill_uniform_short(out, static_cast<std::size_t>(sd.uniform), lo, hi,
                       [values](Bits* at, std::size_t segment, std::size_t, auto count) {
                         const Bits value = values[segment];
                         for (std::size_t t = 0; t < count; ++t) at[t] = value;
                       });
    return k;
  }
  return fill_by_segment(
      out, sd, k, lo, hi,
      [values](Bits* at, std::size_t segment, std::size_t) {  // by value: see fill_by_segment
        const Bits value = values[segment];
        for (std::size_t t = 0; t < kShortSegment; ++t) at[t] = value;
      },
      [&](std::size_t segment, std::size_t from, std::size_t to) {
        fill_values(out + (from - lo), to - from, values[segment], streaming);
      });
}

// at[t] = index_value(start, stride, first + t) for t < kShortSegment: two 4-lane stores where
// SSE2 is there (every x86-64), instead of eight scalar ones (bh's INDEX over many segments of 1
// to 8 elements spent most of its time on them).
inline void index_run(std::int32_t* at, std::int32_t start, std::int32_t stride, std::uint32_t first) {
  static_assert(kShortSegment == 8);
  const auto step = static_cast<std::uint32_t>(stride);
  const std::uint32_t base = static_cast<std::uint32_t>(start) + first * step;
#if defined(__SSE2__)
  // The offsets of the lanes from base depend on the stride alone: with one stride for all
  // segments (an INDEX counting by 1) they are made once, outside the caller's loop.
  const __m128i ramp = _mm_setr_epi32(0, static_cast<int>(step), static_cast<int>(2 * step),
                                      static_cast<int>(3 * step));
  const __m128i low = _mm_add_epi32(_mm_set1_epi32(static_cast<int>(base)), ramp);
  const __m128i high = _mm_add_epi32(low, _mm_set1_epi32(static_cast<int>(4 * step)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(at), low);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(at + 4), high);
#else
  for (std::uint32_t t = 0; t < kShortSegment; ++t) at[t] = static_cast<std::int32_t>(base + t * step);
#endif
}

// piece[t] = index_value(start, stride, first + t) for t < count, by adding the stride (the
// same values: the reference adds it repeatedly, wrapping) four lanes at a time where SSE2 is
// there, which has no 32-bit multiply. Into the cache (a FUSED block, a permute's indices) the
// multiply per lane was the cost.
inline void index_piece(std::int32_t* piece, std::size_t count, std::int32_t start,
                        std::int32_t stride, std::uint32_t first) {
  const auto step = static_cast<std::uint32_t>(stride);
  std::uint32_t value = static_cast<std::uint32_t>(start) + first * step;
  std::size_t t = 0;
#if defined(__SSE2__)
  if (count >= 8) {
    __m128i low = _mm_setr_epi32(static_cast<int>(value), static_cast<int>(value + step),
                                 static_cast<int>(value + 2 * step), static_cast<int>(value + 3 * step));
    const __m128i four = _mm_set1_epi32(static_cast<int>(4 * step));
    __m128i high = _mm_add_epi32(low, four);
    const __m128i eight = _mm_add_epi32(four, four);
    for (; t + 8 <= count; t += 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(piece + t), low);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(piece + t + 4), high);
      low = _mm_add_epi32(low, eight);
      high = _mm_add_epi32(high, eight);
    }
    value += static_cast<std::uint32_t>(t) * step;
  }
#endif
  for (; t < count; ++t, value += step) piece[t] = static_cast<std::int32_t>(value);
}

// INDEX over [lo, hi) (`k` the segment holding lo): out[pos - lo] = starts[k] + strides[k] times
// the offset of pos in segment k, wrapping as the reference's repeated addition does.
// Returns as fill_dist does.
template <class View, class Starts, class Strides>
std::size_t fill_index(std::int32_t* out, const View& sd, std::size_t k, std::size_t lo, std::size_t hi,
                const Starts& starts, const Strides& strides) {
  if (short_and_uniform(sd)) {
    fill_uniform_short(out, static_cast<std::size_t>(sd.uniform), lo, hi,
                       [starts, strides](std::int32_t* at, std::size_t segment, std::size_t first,
                                         auto count) {
                         const auto step = static_cast<std::uint32_t>(strides[segment]);
                         const std::uint32_t value =
                             static_cast<std::uint32_t>(starts[segment]) +
                             static_cast<std::uint32_t>(first) * step;
                         for (std::size_t t = 0; t < count; ++t)
                           at[t] = static_cast<std::int32_t>(value + static_cast<std::uint32_t>(t) * step);
                       });
    return k;
  }
  return fill_by_segment(
      out, sd, k, lo, hi,
      [starts, strides](std::int32_t* at, std::size_t segment, std::size_t first) {  // by value
        index_run(at, starts[segment], strides[segment], static_cast<std::uint32_t>(first));
      },
      [&](std::size_t segment, std::size_t from, std::size_t to) {
        const auto first = static_cast<std::uint32_t>(from - sd.start(segment));
        index_piece(out + (from - lo), to - from, starts[segment], strides[segment], first);
      });
}

}  // namespace cvl::cpu
