// Launches of the library's own kernels (dispatch.hpp); data-moving kernels are instantiated
// per element width only (1, 4 or 8 bytes), not per type.
#include <algorithm>
#include <string>

#include "dispatch.hpp"
#include "kernels/permute.hpp"
#include "kernels/segments.hpp"
#include "kernels/vector_ops.hpp"
#include "library.hpp"

namespace cvl::CVL_CUDA_NS::dispatch {
namespace {

using vcode::Op;

int bits_for(std::size_t count) {  // bits needed to write count - 1
  int bits = 0;
  while (bits < 64 && (std::uint64_t{1} << bits) < count) ++bits;
  return bits;
}

}  // namespace

void elementwise(Device& device, Op op, Type type, const kernels::TypedInput* inputs, void* out,
                 Extent n, unsigned long long* fault) {
  if (n.bound == 0) return;
  visit_elementwise(op, type, [&]<Op kOp, class Sem, Type kType>() {
    if constexpr (kOp == Op::Select) {
      with_element_bits(type, [&]<class Bits>() {
        device.launch(n, kernels::TypedSelect<Bits>{static_cast<const std::uint8_t*>(inputs[0].data),
                                                    static_cast<const Bits*>(inputs[1].data),
                                                    static_cast<const Bits*>(inputs[2].data),
                                                    static_cast<Bits*>(out)});
      });
    } else {
      using Kernel = kernels::TypedElementwise<kOp, Sem, kType>;
      device.launch(n, Kernel{{inputs[0].data, inputs[1].data, inputs[2].data},
                              static_cast<typename Kernel::Sig::Out*>(out), fault});
    }
  });
}

void normalize_bools(Device& device, std::uint8_t* data, std::size_t n) {
  device.launch(n, kernels::NormalizeBools{data});
}

void permute(Device& device, Op op, Type type, const void* values, const std::int32_t* indices,
             const std::uint8_t* flags, const SegmentView& source, const SegmentView& dest, Extent walk,
             void* out, unsigned long long* fault, std::uint32_t* record_index) {
  const bool gather = vcode::info(op).shape == vcode::Shape::Gather;
  if (gather) {
    with_element_bits(type, [&]<class Bits>() {
      device.launch(walk, kernels::Gather<Bits>{static_cast<const Bits*>(values), indices, flags,
                                                source, dest, static_cast<Bits*>(out), fault,
                                                record_index});
    });
    return;
  }
  if (walk.bound == 0) return;
  DeviceBuffer claims(borrow(device), dest.total * sizeof(std::uint32_t));
  device.fill_bytes(claims.get(), 0, claims.bytes());
  const kernels::ClaimScatter claim{indices, flags, source, dest, claims.as<std::uint32_t>(),
                                   fault, record_index};
  with_element_bits(type, [&]<class Bits>() {
    device.launch_phases(
        walk, kernels::ClaimThenScatter<Bits>{
                  claim, {static_cast<const Bits*>(values), indices, flags, source, dest,
                          claims.as<std::uint32_t>(), static_cast<Bits*>(out)}});
  });
}

void extract(Device& device, Type type, const void* values, const std::int32_t* indices,
             const SegmentView& sd, Extent segments, void* out, unsigned long long* fault) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(segments, kernels::Extract<Bits>{static_cast<const Bits*>(values), indices, sd,
                                                   static_cast<Bits*>(out), fault});
  });
}

void replace(Device& device, Type type, const std::int32_t* indices, const void* replacement,
             const SegmentView& sd, Extent segments, void* out, unsigned long long* fault) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(segments,
                  kernels::Replace<Bits>{indices, static_cast<const Bits*>(replacement), sd,
                                         static_cast<Bits*>(out), fault});
  });
}

void distribute(Device& device, Type type, const void* values, const SegmentView& sd,
                Extent elements, void* out, std::uint32_t* record_index) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(elements, kernels::Distribute<Bits>{static_cast<const Bits*>(values), sd,
                                                      static_cast<Bits*>(out), record_index});
  });
}

void index(Device& device, const std::int32_t* starts, const std::int32_t* strides,
           const SegmentView& sd, Extent elements, std::int32_t* out,
           std::uint32_t* record_index) {
  device.launch(elements, kernels::Index{starts, strides, sd, out, record_index});
}

void pack_outputs(Device& device, Type type, const void* values, const std::uint8_t* flags,
                  const std::int64_t* before, const SegmentView& sd, Extent elements, void* out,
                  std::int32_t* counts, std::int64_t* offsets, std::int64_t* total) {
  const std::size_t items = std::max(elements.bound, sd.segments + 1);
  with_element_bits(type, [&]<class Bits>() {
    device.launch(items, kernels::PackOutputs<Bits>{static_cast<const Bits*>(values), flags,
                                                    before, sd, elements,
                                                    static_cast<Bits*>(out), counts, offsets,
                                                    total});
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
  if (type == Type::Int) {
    device.launch(n, kernels::IntRankKeys{static_cast<const std::int32_t*>(values), keys,
                                          segmented, descending, key, element});
    library::sort_pairs(device, key, element, n,
                        segmented ? 32 + bits_for(keys.sd.segments + 1) : 32);
  } else {
    device.launch(
        n, kernels::FloatRankKeys{static_cast<const double*>(values),
                                  order == FloatRankOrder::Legacy, descending, key, element});
    library::sort_pairs(device, key, element, n, 64);
    if (segmented) {  // a stable sort by segment keeps the key order inside each segment
      DeviceBuffer segments(borrow(device), n * sizeof(std::uint32_t));
      auto* segment = segments.as<std::uint32_t>();
      device.launch(n, kernels::SegmentOfElement{element, keys, segment});
      library::sort_pairs(device, segment, element, n);
    }
  }
  device.launch(elements, kernels::ScatterRanks{element, keys.sd, out});
}

void copy_count(Device& device, const std::int64_t* count, std::int32_t* out) {
  device.launch(1, kernels::CopyCount{count, out});
}

}  // namespace cvl::CVL_CUDA_NS::dispatch
