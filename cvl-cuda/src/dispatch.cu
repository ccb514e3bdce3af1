// Launches of the library's own kernels (dispatch.hpp); data-moving kernels are instantiated
// per element width only (1, 4 or 8 bytes), not per type.
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
                 std::size_t n, unsigned long long* fault) {
  if (n == 0) return;
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
             const std::uint8_t* flags, const SegMap& source, const SegMap& dest, void* out,
             unsigned long long* fault) {
  const bool gather = vcode::info(op).shape == vcode::Shape::Gather;
  if (gather) {
    with_element_bits(type, [&]<class Bits>() {
      device.launch(dest.total,
                    kernels::Gather<Bits>{static_cast<const Bits*>(values), indices, flags, source,
                                          dest, static_cast<Bits*>(out), fault});
    });
    return;
  }
  if (source.total == 0) return;
  DeviceBuffer claims(borrow(device), dest.total * sizeof(std::uint32_t));
  device.fill_bytes(claims.get(), 0, claims.bytes());
  device.launch(source.total, kernels::ClaimScatter{indices, flags, source, dest,
                                                    claims.as<std::uint32_t>(), fault});
  with_element_bits(type, [&]<class Bits>() {
    device.launch(source.total,
                  kernels::Scatter<Bits>{static_cast<const Bits*>(values), indices, flags, source,
                                         dest, claims.as<std::uint32_t>(), static_cast<Bits*>(out)});
  });
}

void extract(Device& device, Type type, const void* values, const std::int32_t* indices,
             const SegMap& sd, void* out, unsigned long long* fault) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(sd.segments, kernels::Extract<Bits>{static_cast<const Bits*>(values), indices, sd,
                                                      static_cast<Bits*>(out), fault});
  });
}

void replace(Device& device, Type type, const std::int32_t* indices, const void* replacement,
             const SegMap& sd, void* out, unsigned long long* fault) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(sd.segments,
                  kernels::Replace<Bits>{indices, static_cast<const Bits*>(replacement), sd,
                                         static_cast<Bits*>(out), fault});
  });
}

void distribute(Device& device, Type type, const void* values, const SegMap& sd, void* out) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(sd.total, kernels::Distribute<Bits>{static_cast<const Bits*>(values), sd,
                                                      static_cast<Bits*>(out)});
  });
}

void index(Device& device, const std::int32_t* starts, const std::int32_t* strides,
           const SegMap& sd, std::int32_t* out) {
  device.launch(sd.total, kernels::Index{starts, strides, sd, out});
}

void check_lengths(Device& device, const std::int32_t* lengths, std::size_t segments,
                   unsigned long long* fault) {
  device.launch(segments, kernels::CheckLengths{lengths, fault});
}

void packed_segments(Device& device, const std::int64_t* before, const SegMap& sd,
                     std::int32_t* counts, std::int64_t* offsets) {
  device.launch(sd.segments + 1, kernels::PackedSegments{before, sd, counts, offsets});
}

void compact(Device& device, Type type, const void* values, const std::uint8_t* flags,
             const std::int64_t* before, std::size_t n, void* out) {
  with_element_bits(type, [&]<class Bits>() {
    device.launch(n, kernels::Compact<Bits>{static_cast<const Bits*>(values), flags, before,
                                            static_cast<Bits*>(out)});
  });
}

void rank(Device& device, bool descending, Type type, FloatRankOrder order, const void* values,
          const SegMap& sd, std::int32_t* out) {
  const std::size_t n = sd.total;
  if (n == 0) return;
  DeviceBuffer keys(borrow(device), n * sizeof(std::uint64_t));
  DeviceBuffer elements(borrow(device), n * sizeof(std::uint32_t));
  auto* key = keys.as<std::uint64_t>();
  auto* element = elements.as<std::uint32_t>();
  const bool segmented = sd.segments > 1;
  if (type == Type::Int) {
    device.launch(n, kernels::IntRankKeys{static_cast<const std::int32_t*>(values), sd, segmented,
                                          descending, key, element});
    library::sort_pairs(device, key, element, n, segmented ? 32 + bits_for(sd.segments) : 32);
  } else {
    device.launch(
        n, kernels::FloatRankKeys{static_cast<const double*>(values),
                                  order == FloatRankOrder::Legacy, descending, key, element});
    library::sort_pairs(device, key, element, n, 64);
    if (segmented) {  // a stable sort by segment keeps the key order inside each segment
      DeviceBuffer segments(borrow(device), n * sizeof(std::uint32_t));
      auto* segment = segments.as<std::uint32_t>();
      device.launch(n, kernels::SegmentOfElement{element, sd, segment});
      library::sort_pairs(device, segment, element, n);
    }
  }
  device.launch(n, kernels::ScatterRanks{element, sd, out});
}

}  // namespace cvl::CVL_CUDA_NS::dispatch
