// The op families of cvl-cpu, one source file each. backend.cpp forwards here (asserting the shape
// rules in debug builds); these functions check only what depends on the data (indices, divisors,
// lengths).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "cvl/backend.hpp"
#include "memory/storage.hpp"
#include "pending/context.hpp"
#include "threads/parallel.hpp"

namespace cvl::cpu {

Vector elementwise(const Context& ctx, vcode::Op op, Type type, std::span<Vector> operands);
Vector random(const Context& ctx, Vector bounds, RandomStream& stream);
// RAND's values: the next `n` draws of `stream`, each reduced by its bound (`bounds[i]`, or
// `bound` for all when bounds is null; none is 0).
void draw_random(std::int32_t* result, std::size_t n, const std::int32_t* bounds,
                 std::int32_t bound, RandomStream& stream);

Vector scan(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd);
// `first_held_nan`, where given: set to whether the first segment held a NaN (FLOAT MAX and MIN;
// left as it is for the others), found in the same pass (segmented_fold.hpp).
Vector reduce(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd,
              bool* first_held_nan = nullptr);

Vector permute(const Context& ctx, vcode::Op op, PermuteOperands&& operands);

Vector extract(const Context& ctx, Vector v, Vector indices, const SegmentView& sd);
Vector replace(const Context& ctx, Vector v, Vector indices, Vector values, const SegmentView& sd);
// `descriptor`: the handle `sd` views, kept by a result described instead of written
// (SegmentValues).
Vector distribute(const Context& ctx, Vector values, const SegmentView& sd,
                  const Segdes& descriptor);
// INDEX; pending where ctx.lazy and long (lazy_index), `descriptor` the handle `sd` views.
Vector index(const Context& ctx, Vector starts, Vector strides, const SegmentView& sd,
             const Segdes& descriptor);
// DIST and INDEX over a wide descriptor (storage.hpp: is_wide): pending only, to be streamed
// into what reads them (a segmented reduction); vector_too_long_message where they cannot wait
// (--eager).
Vector distribute_wide(const Context& ctx, Vector values, const Segdes& descriptor);
Vector index_wide(const Context& ctx, Vector starts, Vector strides, const Segdes& descriptor);

Vector rank(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd);
std::pair<Vector, Segdes> pack(const Context& ctx, Vector v, Vector flags, const SegmentView& sd);

// "OP: index I at position P is outside its segment of length L"
[[noreturn]] void throw_index_fault(vcode::Op op, const IndexFault& fault);

}  // namespace cvl::cpu
