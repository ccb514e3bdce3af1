// The parts of the device traffic formulas (device.hpp: Traffic) that several kernels share:
// reading a descriptor, writing its per-element index, a radix sort.
#pragma once

#include <cstddef>
#include <cstdint>

#include "handles.hpp"

namespace cvl::CVL_CUDA_NS {

namespace traffic {

// Finding each element's segment in `sd` (SegmentView::segment_of): the per-element index where
// it is read (4 bytes an element), nothing for one segment or uniform lengths, the offsets once
// for a search (neighbouring elements walk the same entries, which stay cached).
inline Traffic segment_of(const SegmentView& sd) {
  if (sd.segments <= 1 || sd.uniform > 0) return {};
  if (sd.index) return {sizeof(std::uint32_t), 0};
  return {0, (sd.segments + 1) * sizeof(std::int64_t)};
}

// Reading segment starts and lengths of `sd` (SegmentView::start, length) once each.
inline Traffic offsets(const SegmentView& sd) { return {0, (sd.segments + 1) * sizeof(std::int64_t)}; }

// The per-element index a walk writes where it is asked to (`record_index` not null).
inline Traffic recorded_index(const void* record_index) {
  return {record_index ? sizeof(std::uint32_t) : 0, 0};
}

// Bytes of a CUB radix sort of `n` pairs of `key_bytes`-byte keys and `value_bytes`-byte values
// over `key_bits` bits: one pass reading the keys for every digit's histogram, then a pass per
// 8-bit digit reading and writing keys and values (the onesweep sort, as documented by CUB).
inline std::uint64_t radix_sort(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                                int key_bits) {
  const std::uint64_t passes = (static_cast<std::uint64_t>(key_bits) + 7) / 8;
  return n * (key_bytes + passes * 2 * (key_bytes + value_bytes));
}

}  // namespace traffic
}  // namespace cvl::CVL_CUDA_NS
