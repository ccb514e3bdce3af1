// The dispatch layer's library half: scans, reductions, sorts and the prefix sums behind segment
// descriptors and PACK, on Thrust (both builds) and CUB (the real build, where it avoids a sync
// or passes). Kept in one translation unit because these templates are slow to compile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/backend.hpp"
#include "device.hpp"
#include "handles.hpp"

namespace cvl::CVL_CUDA_NS::library {

// Exclusive segmented scan of n = sd.total elements of `type`; `out` may be `in`.
void scan(Device& device, vcode::Op op, Type type, const void* in, void* out, const SegMap& sd);
// One result per segment into `out` (sd.segments elements); empty segments get the identity.
void reduce(Device& device, vcode::Op op, Type type, const void* in, void* out, const SegMap& sd);

// offsets[0] = 0, offsets[k + 1] = lengths[0] + ... + lengths[k] (64-bit).
void offsets_from_lengths(Device& device, const std::int32_t* lengths, std::size_t segments,
                          std::int64_t* offsets);
// index[j] = the segment holding element j.
void segment_index(Device& device, const std::int64_t* offsets, std::size_t segments,
                   std::size_t total, std::uint32_t* index);
// before[i] = number of T flags among flags[0..i), for i = 0..n (n + 1 entries).
void flags_before(Device& device, const std::uint8_t* flags, std::size_t n, std::int64_t* before);

// Stable sort of `values` by the low `key_bits` bits of `keys` (afterwards the keys' order is
// unspecified: RANK needs only the sorted values).
void sort_pairs(Device& device, std::uint64_t* keys, std::uint32_t* values, std::size_t n,
                int key_bits);
void sort_pairs(Device& device, std::uint32_t* keys, std::uint32_t* values, std::size_t n);

}  // namespace cvl::CVL_CUDA_NS::library
