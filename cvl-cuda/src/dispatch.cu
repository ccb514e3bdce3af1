// Launches of the library's own kernels (dispatch.hpp); data-moving kernels are instantiated
// per element width only (1, 4 or 8 bytes), not per type.
#include <algorithm>
#include <string>
#include <utility>

#include "dispatch.hpp"
#include "kernels/permute.hpp"
#include "kernels/segments.hpp"
#include "kernels/vector_ops.hpp"
#include "library.hpp"
#include "traffic.hpp"

namespace cvl::CVL_CUDA_NS::dispatch {
namespace {

using vcode::Op;

int bits_for(std::size_t count) {  // bits needed to write count - 1
  int bits = 0;
  while (bits < 64 && (std::uint64_t{1} << bits) < count) ++bits;
  return bits;
}

// Reading an operand at each walked element: its stored element, or (made in place, as
// dispatch::distribute and dispatch::index count it) its segment found, and each segment's value
// (a DIST's), or its start and the INDEX's start and stride, once.
Traffic element_read(const kernels::ElementOperand& operand, std::uint64_t element_bytes) {
  if (operand.stored()) return {element_bytes, 0};
  const std::uint64_t segments = operand.sd.segments;
  if (!operand.strides) return traffic::segment_of(operand.sd) + Traffic{0, segments * element_bytes};
  return traffic::segment_of(operand.sd) + traffic::offsets(operand.sd) +
         Traffic{0, segments * 2 * sizeof(std::int32_t)};
}

}  // namespace

void elementwise(Device& device, Op op, Type type, const kernels::TypedInput* inputs, void* out,
                 Extent n, unsigned long long* fault) {
  if (n.bound == 0) return;
  visit_elementwise(op, type, [&]<Op kOp, class Sem, Type kType>() {
    if constexpr (kOp == Op::Select) {
      with_element_bits(type, [&]<class Bits>() {
        // The flag, the one side it picks, the result.
        device.launch(n, kernels::TypedSelect<Bits>{static_cast<const std::uint8_t*>(inputs[0].data),
                                                    static_cast<const Bits*>(inputs[1].data),
                                                    static_cast<const Bits*>(inputs[2].data),
                                                    static_cast<Bits*>(out)},
                      Traffic{1 + 2 * sizeof(Bits), 0});
      });
    } else {
      using Kernel = kernels::TypedElementwise<kOp, Sem, kType>;
      using Sig = typename Kernel::Sig;
      // Each input and the result, at their element sizes.
      const std::uint64_t per_element = [&]<std::size_t... k>(std::index_sequence<k...>) {
        return (sizeof(typename Sig::Out) + ... + sizeof(typename Sig::template In<k>));
      }(std::make_index_sequence<Sig::arity>());
      device.launch(n, Kernel{{inputs[0].data, inputs[1].data, inputs[2].data},
                              static_cast<typename Sig::Out*>(out), fault},
                    Traffic{per_element, 0});
    }
  });
}

void normalize_bools(Device& device, std::uint8_t* data, std::size_t n) {
  device.launch(n, kernels::NormalizeBools{data}, Traffic{2, 0});
}

void permute(Device& device, Op op, Type type, const kernels::ElementOperand& values,
             const kernels::ElementOperand& indices, const std::uint8_t* flags,
             const SegmentView& source, const SegmentView& dest, Extent walk, void* out,
             unsigned long long* fault, std::uint32_t* record_index) {
  const bool gather = vcode::info(op).shape == vcode::Shape::Gather;
  const std::uint64_t flag_bytes = flags ? 1 : 0;
  const Traffic index_read = element_read(indices, sizeof(std::int32_t));
  if (gather) {
    with_element_bits(type, [&]<class Bits>() {
      // Per destination element: its segment, flag and index, the value fetched, the result.
      const Traffic traffic = traffic::segment_of(dest) + traffic::recorded_index(record_index) +
                              traffic::offsets(source) + index_read +
                              Traffic{flag_bytes + 2 * sizeof(Bits), 0};
      device.launch(walk, kernels::Gather<Bits>{static_cast<const Bits*>(values.data), indices,
                                                flags, source, dest, static_cast<Bits*>(out),
                                                fault, record_index},
                    traffic);
    });
    return;
  }
  if (walk.bound == 0) return;
  DeviceBuffer claims(borrow(device), dest.total * sizeof(std::uint32_t));
  device.fill_bytes(claims.get(), 0, claims.bytes());
  const kernels::ClaimScatter claim{indices, flags, source, dest, claims.as<std::uint32_t>(),
                                   fault, record_index};
  with_element_bits(type, [&]<class Bits>() {
    // Per source element, in each phase: its segment, flag and index; the claim pass reads and
    // writes its target's claim, the write pass reads it back, then the value and the result.
    const Traffic each_pass =
        traffic::segment_of(source) + traffic::offsets(dest) + index_read + Traffic{flag_bytes, 0};
    const Traffic traffic = each_pass + each_pass + traffic::recorded_index(record_index) +
                            element_read(values, sizeof(Bits)) +
                            Traffic{3 * sizeof(std::uint32_t) + sizeof(Bits), 0};
    device.launch_phases(
        walk,
        kernels::ClaimThenScatter<Bits>{claim, {values, indices, flags, source, dest,
                                                claims.as<std::uint32_t>(), static_cast<Bits*>(out)}},
        traffic);
  });
}

void extract(Device& device, Type type, const void* values, const std::int32_t* indices,
             const SegmentView& sd, Extent segments, void* out, unsigned long long* fault) {
  with_element_bits(type, [&]<class Bits>() {
    // Per segment: its index and start, the value fetched, the result.
    device.launch(segments,
                  kernels::Extract<Bits>{static_cast<const Bits*>(values), indices, sd,
                                         static_cast<Bits*>(out), fault},
                  traffic::offsets(sd) + Traffic{sizeof(std::int32_t) + 2 * sizeof(Bits), 0});
  });
}

void replace(Device& device, Type type, const std::int32_t* indices, const void* replacement,
             const SegmentView& sd, Extent segments, void* out, unsigned long long* fault) {
  with_element_bits(type, [&]<class Bits>() {
    // Per segment: its index and start, the replacement read and written.
    device.launch(segments,
                  kernels::Replace<Bits>{indices, static_cast<const Bits*>(replacement), sd,
                                         static_cast<Bits*>(out), fault},
                  traffic::offsets(sd) + Traffic{sizeof(std::int32_t) + 2 * sizeof(Bits), 0});
  });
}

void distribute(Device& device, Type type, const void* values, const SegmentView& sd,
                Extent elements, void* out, std::uint32_t* record_index) {
  with_element_bits(type, [&]<class Bits>() {
    // Per element: its segment and the result; each segment's value once (its elements share
    // it).
    device.launch(elements,
                  kernels::Distribute<Bits>{static_cast<const Bits*>(values), sd,
                                            static_cast<Bits*>(out), record_index},
                  traffic::segment_of(sd) + traffic::recorded_index(record_index) +
                      Traffic{sizeof(Bits), sd.segments * sizeof(Bits)});
  });
}

void index(Device& device, const std::int32_t* starts, const std::int32_t* strides,
           const SegmentView& sd, Extent elements, std::int32_t* out,
           std::uint32_t* record_index) {
  // Per element: its segment and start, the result; each segment's start and stride once.
  device.launch(elements, kernels::Index{starts, strides, sd, out, record_index},
                traffic::segment_of(sd) + traffic::offsets(sd) +
                    traffic::recorded_index(record_index) +
                    Traffic{sizeof(std::int32_t), sd.segments * 2 * sizeof(std::int32_t)});
}

void pack(Device& device, Type type, const void* values, const std::uint8_t* flags,
          const SegmentView& sd, Extent elements, void* out, std::int32_t* counts,
          std::int64_t* offsets, std::int64_t* total, std::int32_t* total_value) {
  const std::size_t n = elements.bound;
  const std::size_t tiles = (n + kernels::kPackTile - 1) / kernels::kPackTile;
  const std::size_t segment_tiles =
      (sd.segments + cuda_tuning::kBlockSize) / cuda_tuning::kBlockSize;
  auto owner = borrow(device);
  DeviceBuffer tile_prefix(owner, tiles * sizeof(std::uint32_t));
  // The kept elements before each element, for the segments' starts: one segment starts at 0.
  const bool several = sd.segments > 1;
  DeviceBuffer before(owner, several ? n * sizeof(std::uint32_t) : 0);
  with_element_bits(type, [&]<class Bits>() {
    // Each flag read twice (counted, then scanned again); per tile its count written, read, its
    // prefix written and read; the total written (and as an INT), and read per segment; with
    // several segments an entry written per element and read per segment; per kept element the
    // value and the result; per segment and one past the last the offset read, the new offset and
    // count written.
    const std::uint64_t per_segment = 2 * sizeof(std::int64_t) + sizeof(std::int32_t) +
                                      sizeof(std::int64_t) + (several ? sizeof(std::uint32_t) : 0);
    const std::uint64_t once = 2 * n + tiles * 4 * sizeof(std::uint32_t) + sizeof(std::int64_t) +
                               sizeof(std::int32_t) +
                               (several ? n * sizeof(std::uint32_t) : 0) +
                               per_segment * (sd.segments + 1);
    device.launch_tiles(std::max(tiles, segment_tiles),
                        kernels::PackTiles<Bits>{static_cast<const Bits*>(values), flags, sd,
                                                 elements, tiles, tile_prefix.as<std::uint32_t>(),
                                                 several ? before.as<std::uint32_t>() : nullptr,
                                                 static_cast<Bits*>(out), counts, offsets, total,
                                                 total_value},
                        Traffic{0, once, 2 * sizeof(Bits), Extent{n, total}});
  });
}

void rank(Device& device, bool descending, Type type, FloatRankOrder order, const void* values,
          const SegmentKey& keys, Extent elements, std::int32_t* out) {
  const std::size_t n = elements.bound;
  if (n == 0) return;
  DeviceBuffer sort_keys(borrow(device), n * sizeof(std::uint64_t));
  DeviceBuffer sorted(borrow(device), n * sizeof(std::uint32_t));
  auto* key = sort_keys.as<std::uint64_t>();
  auto* element = sorted.as<std::uint32_t>();
  // With a pending count the elements past it take the segment key past the last segment.
  const bool segmented = keys.sd.segments > 1 || keys.total;
  // The keys kernels: per element the value read, the key and the element written.
  const Traffic keys_written{sizeof(std::uint64_t) + sizeof(std::uint32_t), 0};
  if (type == Type::Int) {
    device.launch(n,
                  kernels::IntRankKeys{static_cast<const std::int32_t*>(values), keys, segmented,
                                       descending, key, element},
                  (segmented ? traffic::segment_of(keys.sd) : Traffic{}) + keys_written +
                      Traffic{sizeof(std::int32_t), 0});
    library::sort_pairs(device, key, element, n,
                        segmented ? 32 + bits_for(keys.sd.segments + 1) : 32);
  } else {
    device.launch(n,
                  kernels::FloatRankKeys{static_cast<const double*>(values),
                                         order == FloatRankOrder::Legacy, descending, key, element},
                  keys_written + Traffic{sizeof(double), 0});
    library::sort_pairs(device, key, element, n, 64);
    if (segmented) {  // a stable sort by segment keeps the key order inside each segment
      DeviceBuffer segments(borrow(device), n * sizeof(std::uint32_t));
      auto* segment = segments.as<std::uint32_t>();
      // Per sorted position: the element read, its segment found (at random), the key written.
      device.launch(n, kernels::SegmentOfElement{element, keys, segment},
                    traffic::segment_of(keys.sd) + Traffic{2 * sizeof(std::uint32_t), 0});
      library::sort_pairs(device, segment, element, n);
    }
  }
  // Per sorted position: the element read, its segment and start, the rank written.
  device.launch(elements, kernels::ScatterRanks{element, keys.sd, out},
                traffic::segment_of(keys.sd) + traffic::offsets(keys.sd) +
                    Traffic{sizeof(std::uint32_t) + sizeof(std::int32_t), 0});
}

void copy_count(Device& device, const std::int64_t* count, std::int32_t* out) {
  device.launch(1, kernels::CopyCount{count, out},
                Traffic{sizeof(std::int64_t) + sizeof(std::int32_t), 0});
}

}  // namespace cvl::CVL_CUDA_NS::dispatch
