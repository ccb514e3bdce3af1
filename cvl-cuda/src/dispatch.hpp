// The dispatch layer's kernel half: each device operation on raw device pointers and descriptor
// maps, sized and launched through Device::launch (kernels/*.hpp hold the bodies). Operations
// that may fault on data take a fault word from the Device's board.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/backend.hpp"
#include "device.hpp"
#include "handles.hpp"
#include "kernels/elementwise.hpp"

namespace cvl::CVL_CUDA_NS::dispatch {

// `inputs` and `out` have the types ops.def gives the op at element type `type`.
void elementwise(Device& device, vcode::Op op, Type type, const kernels::TypedInput* inputs,
                 void* out, std::size_t n, unsigned long long* fault);
void normalize_bools(Device& device, std::uint8_t* data, std::size_t n);

// Scatters (PERMUTE, DPERMUTE, FPERMUTE, DFPERMUTE) over the source elements into `out`, which
// already holds what unwritten positions must show (where several elements target one position the
// highest source position wins: a claim pass, then the writes); gathers (BPERMUTE, BFPERMUTE) over the
// destination elements. `flags` is null for the unflagged ops.
void permute(Device& device, vcode::Op op, Type type, const void* values,
             const std::int32_t* indices, const std::uint8_t* flags, const SegMap& source,
             const SegMap& dest, void* out, unsigned long long* fault);

void extract(Device& device, Type type, const void* values, const std::int32_t* indices,
             const SegMap& sd, void* out, unsigned long long* fault);
void replace(Device& device, Type type, const std::int32_t* indices, const void* replacement,
             const SegMap& sd, void* out, unsigned long long* fault);
void distribute(Device& device, Type type, const void* values, const SegMap& sd, void* out);
void index(Device& device, const std::int32_t* starts, const std::int32_t* strides,
           const SegMap& sd, std::int32_t* out);

void check_lengths(Device& device, const std::int32_t* lengths, std::size_t segments,
                   unsigned long long* fault);
// PACK after library::flags_before: per-segment counts and new offsets, then the compaction.
void packed_segments(Device& device, const std::int64_t* before, const SegMap& sd,
                     std::int32_t* counts, std::int64_t* offsets);
void compact(Device& device, Type type, const void* values, const std::uint8_t* flags,
             const std::int64_t* before, std::size_t n, void* out);

// RANK_UP / RANK_DOWN of every segment: one stable radix sort by (segment, key) for INT, two
// stable sorts (key, then segment) for FLOAT's 64-bit keys.
void rank(Device& device, bool descending, Type type, FloatRankOrder order, const void* values,
          const SegMap& sd, std::int32_t* out);

}  // namespace cvl::CVL_CUDA_NS::dispatch
