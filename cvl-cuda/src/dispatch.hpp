// The dispatch layer's kernel half: each device operation on raw device pointers and descriptor
// maps, sized and launched through Device::launch (kernels/*.hpp hold the bodies). Operations
// that may fault on data take a fault word from the Device's board.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/backend.hpp"
#include "device.hpp"
#include "handles.hpp"
#include "kernels/element_operand.hpp"
#include "kernels/elementwise.hpp"

namespace cvl::CVL_CUDA_NS::dispatch {

// Every operation takes the extent it walks (device.hpp: a bound on the host, and the count
// on the device where it is pending); the caller limits the bound to what the buffers hold.

// `inputs` and `out` have the types ops.def gives the op at element type `type`.
void elementwise(Device& device, vcode::Op op, Type type, const kernels::TypedInput* inputs,
                 void* out, Extent n, unsigned long long* fault);
void normalize_bools(Device& device, std::uint8_t* data, std::size_t n);

// Scatters (PERMUTE, DPERMUTE, FPERMUTE, DFPERMUTE) over the source elements (`walk`) into
// `out`, which already holds what unwritten positions must show (where several elements target
// one position the highest source position wins: a claim pass, then the writes, in one phased
// launch); gathers
// (BPERMUTE, BFPERMUTE) over the destination elements (`walk`). The indices, and a scatter's
// values, may be made in place (kernels::ElementOperand); a gather's values are stored. `flags`
// is null for the unflagged ops. `record_index` (null: none) receives the walked descriptor's
// per-element index (kernels/permute.hpp).
void permute(Device& device, vcode::Op op, Type type, const kernels::ElementOperand& values,
             const kernels::ElementOperand& indices, const std::uint8_t* flags,
             const SegmentView& source, const SegmentView& dest, Extent walk, void* out,
             unsigned long long* fault, std::uint32_t* record_index);

void extract(Device& device, Type type, const void* values, const std::int32_t* indices,
             const SegmentView& sd, Extent segments, void* out, unsigned long long* fault);
void replace(Device& device, Type type, const std::int32_t* indices, const void* replacement,
             const SegmentView& sd, Extent segments, void* out, unsigned long long* fault);
// DIST and INDEX over sd's elements, writing its per-element index into `record_index` where
// that is not null (kernels/vector_ops.hpp).
void distribute(Device& device, Type type, const void* values, const SegmentView& sd,
                Extent elements, void* out, std::uint32_t* record_index);
void index(Device& device, const std::int32_t* starts, const std::int32_t* strides,
           const SegmentView& sd, Extent elements, std::int32_t* out,
           std::uint32_t* record_index);

// PACK in one launch (kernels::PackTiles): the compaction into `out`, the new offsets (the new
// total also into the pending count cell `total`, and as an INT into `total_value`) and the
// per-segment counts.
void pack(Device& device, Type type, const void* values, const std::uint8_t* flags,
          const SegmentView& sd, Extent elements, void* out, std::int32_t* counts,
          std::int64_t* offsets, std::int64_t* total, std::int32_t* total_value);

// RANK_UP / RANK_DOWN of every segment: one stable radix sort by (segment key, key) for INT, two
// stable sorts (key, then segment key) for FLOAT's 64-bit keys; the elements past a pending
// count sort last and get no rank.
void rank(Device& device, bool descending, Type type, FloatRankOrder order, const void* values,
          const SegmentKey& keys, Extent elements, std::int32_t* out);

// out[0] = the count in `count` (LENGTH of a pending length).
void copy_count(Device& device, const std::int64_t* count, std::int32_t* out);

}  // namespace cvl::CVL_CUDA_NS::dispatch
