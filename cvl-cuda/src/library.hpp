// The dispatch layer's library half: scans, reductions, sorts and the prefix sums behind segment
// descriptors, on Thrust (both builds) and CUB (the real build, where it avoids a sync
// or passes). Kept in one translation unit because these templates are slow to compile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/backend.hpp"
#include "device.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::library {

// Exclusive segmented scan of the first `n` elements of `type` by `keys` (handles.hpp; `n` is a
// bound where the count is pending: the scan is right for every real element); `out` may be `in`.
void scan(Device& device, vcode::Op op, Type type, const void* in, void* out,
          const SegmentKey& keys, std::size_t n);
// One result per segment of the first `n` elements into `out` (keys.sd.segments elements: a
// bound where pending); empty segments get the identity. Reads keys.sd's per-element index only
// where reduce_reads_index(n).
void reduce(Device& device, vcode::Op op, Type type, const void* in, void* out,
            const SegmentKey& keys, std::size_t n);
inline bool reduce_reads_index(std::size_t n) { return n > cuda_tuning::kSmallFoldElements; }

// offsets[0] = 0, offsets[k + 1] = lengths[0] + ... + lengths[k] (64-bit) for the
// segments.bound entries, a length past segments' count (a pending one's) or a negative one
// taken as 0, so that the offsets never decrease and end at the real total. A negative length
// records its position in `negative` (when given); `total`, when given, is the pending count cell
// the total is copied into.
void offsets_from_lengths(Device& device, const std::int32_t* lengths, Extent segments,
                          std::int64_t* offsets, std::int64_t* total,
                          unsigned long long* negative);
// index[j] = the segment holding element j, for j < total (past the real total where the counts
// are pending: one past the last real segment or more).
void segment_index(Device& device, const std::int64_t* offsets, std::size_t segments,
                   std::size_t total, std::uint32_t* index);

// Stable sort of `values` by the low `key_bits` bits of `keys` (afterwards the keys' order is
// unspecified: RANK needs only the sorted values).
void sort_pairs(Device& device, std::uint64_t* keys, std::uint32_t* values, std::size_t n,
                int key_bits);
void sort_pairs(Device& device, std::uint32_t* keys, std::uint32_t* values, std::size_t n);

}  // namespace cvl::CVL_CUDA_NS::library
