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

// The typed kernels of the common ops; false for the rest, which take the generic kernel.
template <Type kType, class In>
bool typed_binary(Device& device, Op op, const kernels::TypedInput* in, void* out, std::size_t n,
                  unsigned long long* fault) {
  const auto* a = static_cast<const In*>(in[0].data);
  const auto* b = static_cast<const In*>(in[1].data);
  auto* same = static_cast<In*>(out);
  auto* flag = static_cast<std::uint8_t*>(out);
  switch (op) {
#define CVL_TYPED(OP, OUT, PTR)                                                       \
  case Op::OP:                                                                        \
    device.launch(n, kernels::TypedBinary<Op::OP, kType, In, OUT>{a, b, PTR, fault}); \
    return true;
    CVL_TYPED(Add, In, same)
    CVL_TYPED(Sub, In, same)
    CVL_TYPED(Mul, In, same)
    CVL_TYPED(Div, In, same)
    CVL_TYPED(Less, std::uint8_t, flag)
    CVL_TYPED(LessEq, std::uint8_t, flag)
    CVL_TYPED(Greater, std::uint8_t, flag)
    CVL_TYPED(GreaterEq, std::uint8_t, flag)
    CVL_TYPED(Equal, std::uint8_t, flag)
    CVL_TYPED(NotEqual, std::uint8_t, flag)
#undef CVL_TYPED
    default:
      return false;
  }
}

bool typed_unary(Device& device, Op op, const kernels::TypedInput* in, void* out, std::size_t n) {
  using F = double;
  using I = std::int32_t;
  switch (op) {
#define CVL_TYPED(OP, TYPE, IN, OUT)                                                   \
  case Op::OP:                                                                         \
    device.launch(n, kernels::TypedUnary<Op::OP, Type::TYPE, IN, OUT>{                 \
                         static_cast<const IN*>(in[0].data), static_cast<OUT*>(out)}); \
    return true;
    CVL_TYPED(Log, Float, F, F)
    CVL_TYPED(Sqrt, Float, F, F)
    CVL_TYPED(Exp, Float, F, F)
    CVL_TYPED(Sin, Float, F, F)
    CVL_TYPED(Cos, Float, F, F)
    CVL_TYPED(Tan, Float, F, F)
    CVL_TYPED(Asin, Float, F, F)
    CVL_TYPED(Acos, Float, F, F)
    CVL_TYPED(Atan, Float, F, F)
    CVL_TYPED(Sinh, Float, F, F)
    CVL_TYPED(Cosh, Float, F, F)
    CVL_TYPED(Tanh, Float, F, F)
    CVL_TYPED(Floor, Float, F, I)
    CVL_TYPED(Ceil, Float, F, I)
    CVL_TYPED(Trunc, Float, F, I)
    CVL_TYPED(Round, Float, F, I)
    CVL_TYPED(IntToFloat, Int, I, F)
#undef CVL_TYPED
    default:
      return false;
  }
}

bool typed_elementwise(Device& device, Op op, Type type, const kernels::TypedInput* in, void* out,
                       std::size_t n, unsigned long long* fault) {
  if (typed_unary(device, op, in, out, n)) return true;
  if (op == Op::Select) {
    with_element_bits(type, [&]<class Bits>() {
      device.launch(n, kernels::TypedSelect<Bits>{static_cast<const std::uint8_t*>(in[0].data),
                                                  static_cast<const Bits*>(in[1].data),
                                                  static_cast<const Bits*>(in[2].data),
                                                  static_cast<Bits*>(out)});
    });
    return true;
  }
  if (type == Type::Float) return typed_binary<Type::Float, double>(device, op, in, out, n, fault);
  if (type == Type::Int)
    return typed_binary<Type::Int, std::int32_t>(device, op, in, out, n, fault);
  return false;
}

}  // namespace

void elementwise(Device& device, Op op, Type type, const kernels::TypedInput* inputs, int arity,
                 void* out, Type out_type, std::size_t n, unsigned long long* fault) {
  if (n == 0 || typed_elementwise(device, op, type, inputs, out, n, fault)) return;
  kernels::Elementwise body{op, type, {}, arity, out, out_type, fault};
  for (int a = 0; a < arity; ++a) body.in[a] = inputs[a];
  device.launch(n, body);
}

void normalize_bools(Device& device, std::uint8_t* data, std::size_t n) {
  device.launch(n, kernels::NormalizeBools{data});
}

void permute(Device& device, Op op, Type type, const void* values, const std::int32_t* indices,
             const std::uint8_t* flags, const SegMap& source, const SegMap& dest, void* out,
             unsigned long long* fault) {
  const bool gather = op == Op::BPermute || op == Op::BFPermute;
  with_element_bits(type, [&]<class Bits>() {
    if (gather)
      device.launch(dest.total,
                    kernels::Gather<Bits>{static_cast<const Bits*>(values), indices, flags, source,
                                          dest, static_cast<Bits*>(out), fault});
    else
      device.launch(source.total,
                    kernels::Scatter<Bits>{static_cast<const Bits*>(values), indices, flags, source,
                                           dest, static_cast<Bits*>(out), fault});
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
