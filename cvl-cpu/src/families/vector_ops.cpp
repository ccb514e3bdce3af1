// One value per segment in or out (spec/VCODE.md §6.7): EXTRACT, REPLACE, DIST, INDEX.
#include <algorithm>

#include "cvl/scalar_semantics.hpp"
#include "families/families.hpp"
#include "pending/gather_composition.hpp"
#include "families/segment_fill.hpp"
#include "memory/streaming_fill.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using I32 = std::int32_t;

// Checks idx[k] against the length of segment k for every k; throws naming `op`.
void check_segment_indices(const Parallel& par, Op op, const I32* idx, const SegmentView& sd) {
  auto bad = [&](std::size_t k) {
    return static_cast<std::uint32_t>(idx[k]) >= static_cast<std::uint32_t>(sd.length(k));
  };
  if (!parallel_any(par, sd.segments, kMemoryBoundThreshold, bad)) return;
  for (std::size_t k = 0; k < sd.segments; ++k)
    if (bad(k)) throw_index_fault(op, IndexFault{k, idx[k], static_cast<std::int64_t>(sd.length(k))});
}

}  // namespace

Vector extract(const Context& ctx, Vector v, Vector indices, const SegmentView& sd) {
  const std::size_t m = sd.segments;
  const I32* idx = elements<I32>(indices);
  check_segment_indices(ctx.par, Op::Extract, idx, sd);
  const Type type = v.type;
  return with_element_bits(type, [&]<class Bits>() {
    const Bits* values = elements<Bits>(v);
    Vector out = reuse_or_allocate(std::move(indices), type, m);  // idx[k] is read first
    Bits* result = elements<Bits>(out);
    parallel_for(ctx.par, m, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k)
        result[k] = values[sd.start(k) + static_cast<std::size_t>(idx[k])];
    });
    return out;
  });
}

Vector replace(const Context& ctx, Vector v, Vector indices, Vector values, const SegmentView& sd) {
  const I32* idx = elements<I32>(indices);
  check_segment_indices(ctx.par, Op::Replace, idx, sd);
  Vector out = unshared(ctx.par, std::move(v));
  with_element_bits(out.type, [&]<class Bits>() {
    const Bits* replacement = elements<Bits>(values);
    Bits* result = elements<Bits>(out);
    // One position per segment: the writes never collide, so their order does not matter.
    parallel_for(ctx.par, sd.segments, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k)
        result[sd.start(k) + static_cast<std::size_t>(idx[k])] = replacement[k];
    });
  });
  return out;
}

namespace {

// The bits of every element of `values` where they are known alike without reading them: recorded
// (uniform_bits), or the lengths of a descriptor whose segments are all as long (LENGTHS).
std::optional<std::uint64_t> alike_bits(const Vector& values) {
  if (std::optional<std::uint64_t> bits = uniform_bits(values)) return bits;
  if (const Segdes* of = lengths_descriptor(values))
    if (const std::int64_t length = is_wide(*of) ? wide_view(*of).uniform : view(*of).uniform;
        length > 0)
      return static_cast<std::uint64_t>(length);
  return std::nullopt;
}

}  // namespace

Vector distribute(const Context& ctx, Vector values, const SegmentView& sd,
                  const Segdes& descriptor) {
  if (sd.uniform == 1) return values;  // one element per segment: the values themselves
  if (ctx.lazy)
    if (std::optional<Vector> out = distributed_gather(ctx, values, sd, descriptor, &distribute))
      return std::move(*out);
  const Type type = values.type;
  return with_element_bits(type, [&]<class Bits>() {
    // One segment (a scalar spread, as NESL's constants are), or values all alike: one value,
    // written only where something takes the elements' address (Buffer::defer_fill).
    std::optional<std::uint64_t> same = alike_bits(values);
    if (!same && sd.segments == 1) same = elements<Bits>(values)[0];
    if (same && sd.total >= kDeferredFillMin) return uniform_vector({}, type, sd.total, *same);
    // Long segments: elementwise ops read each segment's value once (segment_values_of).
    if (!same && sd.total >= kDeferredFillMin &&
        sd.total >= kSegmentValuesMinAverage * sd.segments)
      return segment_values_vector({std::move(values), descriptor});
    // Short segments: made where read (an elementwise op's operand, a scatter's values).
    if (!same && ctx.lazy)
      if (std::optional<Vector> out = lazy_distribute(ctx, values, descriptor, sd.total))
        return std::move(*out);
    const Bits* value = elements<Bits>(values);
    Vector out = allocate(type, sd.total);
    Bits* result = elements<Bits>(out);
    const bool streaming = sd.total * sizeof(Bits) >= kStreamingBytes;
    for_each_part(ctx.par, sd, kMemoryBoundThreshold, [&](const Part& p, std::size_t) {
      fill_dist(result + p.begin, sd, first_segment(p), p.begin, p.end, value, streaming);
      if (streaming) streaming_done();
    });
    if (same) mark_uniform(out, *same);
    return out;
  });
}

Vector index(const Context& ctx, Vector starts, Vector strides, const SegmentView& sd,
             const Segdes& descriptor) {
  if (sd.uniform == 1) return starts;  // one element per segment: its start
  if (ctx.lazy)
    if (std::optional<Vector> out = lazy_index(ctx, starts, strides, descriptor, sd.total))
      return std::move(*out);
  const I32* start = elements<I32>(starts);
  const I32* stride = elements<I32>(strides);
  Vector out = allocate(Type::Int, sd.total);
  I32* result = elements<I32>(out);
  for_each_part(ctx.par, sd, kMemoryBoundThreshold, [&](const Part& p, std::size_t) {
    fill_index(result + p.begin, sd, first_segment(p), p.begin, p.end, start, stride);
  });
  return out;
}

Vector distribute_wide(const Context& ctx, Vector values, const Segdes& descriptor) {
  if (ctx.lazy)
    if (std::optional<Vector> out = lazy_distribute(ctx, values, descriptor, descriptor.total))
      return std::move(*out);
  throw Error(vector_too_long_message(std::max<std::uint64_t>(descriptor.total, streamed_total(descriptor))));
}

Vector index_wide(const Context& ctx, Vector starts, Vector strides, const Segdes& descriptor) {
  if (ctx.lazy)
    if (std::optional<Vector> out = lazy_index(ctx, starts, strides, descriptor, descriptor.total))
      return std::move(*out);
  throw Error(vector_too_long_message(std::max<std::uint64_t>(descriptor.total, streamed_total(descriptor))));
}

}  // namespace cvl::cpu
