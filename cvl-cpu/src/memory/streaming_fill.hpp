// Filling a vector larger than the last-level cache: stores that bypass the cache (x86-64
// non-temporal stores) write each line once, where ordinary stores first read it in (and evict
// what the next operation reads). Smaller fills use std::fill: their lines stay in cache for the
// next operation. Other targets always use std::fill.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace cvl::cpu {

// Outputs of at least this many bytes are written around the cache (the L3 of the machines we
// measure on is 32 MiB, shared).
inline constexpr std::size_t kStreamingBytes = std::size_t{32} << 20;

// out[0..n) = value. `streaming`: the whole output is at least kStreamingBytes. Call
// streaming_done() on the same thread before another thread reads what it wrote.
template <class Bits>
void fill_values(Bits* out, std::size_t n, Bits value, bool streaming) {
#if defined(__x86_64__)
  if (streaming && n * sizeof(Bits) >= 64) {
    Bits* end = out + n;
    while (reinterpret_cast<std::uintptr_t>(out) % 16 != 0 && out < end) *out++ = value;
    Bits lanes[16 / sizeof(Bits)];
    std::fill(std::begin(lanes), std::end(lanes), value);
    __m128i chunk;
    std::memcpy(&chunk, lanes, sizeof chunk);
    for (; end - out >= static_cast<std::ptrdiff_t>(16 / sizeof(Bits)); out += 16 / sizeof(Bits))
      _mm_stream_si128(reinterpret_cast<__m128i*>(out), chunk);
    std::fill(out, end, value);
    return;
  }
#endif
  std::fill(out, out + n, value);
}

inline void streaming_done() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

}  // namespace cvl::cpu
