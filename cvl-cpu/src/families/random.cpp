// RAND (spec/CVL.md §7): one generator output per element, in index order, always sequential
// because the generator's stream is. A long RAND of one bound (NESL's rand over a DIST) is
// pending: its values are drawn where they are read, from a copy of the stream as it was, and
// the stream itself moves on past them at once (lazy_random).
#include <algorithm>
#include <optional>
#include <string>

#include "families/families.hpp"
#include "simd/elementwise_kernels.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {

// One draw per element, each reduced by its bound (`bounds[i]`, or `bound` for all when bounds
// is null): C's %, which is INT %'s rule (the draw is non-negative, so the result lies in
// [0, |bound|) and never traps), applied a chunk at a time by that op's block loop, compiled for
// the widest vectors the CPU has (simd/elementwise_kernels.hpp). The draws come a chunk at a time
// too (RandomStream::fill), into a buffer of their own: `result` may be the bounds' memory.
void draw_random(std::int32_t* result, std::size_t n, const std::int32_t* bounds,
                 std::int32_t bound, RandomStream& stream) {
  static const Kernel remainder = kernel_for(vcode::Op::Mod, Type::Int);
  constexpr std::size_t kChunk = 2048;
  std::int32_t draws[kChunk];
  std::int32_t same[kChunk];
  if (!bounds) std::fill_n(same, std::min(n, kChunk), bound);
  for (std::size_t lo = 0; lo < n; lo += kChunk) {
    const std::size_t m = std::min(n - lo, kChunk);
    stream.fill(draws, m);
    const void* in[2] = {draws, bounds ? bounds + lo : same};
    remainder(m, in, result + lo);
  }
}

namespace {

[[noreturn]] void throw_zero_bound(std::size_t position) {
  throw Error("RAND: bound 0 at position " + std::to_string(position));
}

}  // namespace

Vector random(const Context& ctx, Vector bounds, RandomStream& stream) {
  const std::size_t n = bounds.length;
  // Checked before drawing, so a failing RAND leaves the stream untouched.
  if (const std::optional<std::uint64_t> same = uniform_bits(bounds)) {  // NESL's rand(c)
    const auto bound = static_cast<std::int32_t>(*same);
    if (bound == 0) throw_zero_bound(0);
    if (ctx.lazy)
      if (std::optional<Vector> out = lazy_random(ctx, stream, bound, n)) return std::move(*out);
    drop_deferred_fills({&bounds, 1});  // the draws overwrite or drop them
    Vector out = reuse_or_allocate(std::move(bounds), Type::Int, n);
    draw_random(elements<std::int32_t>(out), n, nullptr, bound, stream);
    return out;
  }
  const std::int32_t* bound = elements<std::int32_t>(bounds);
  for (std::size_t i = 0; i < n; ++i)
    if (bound[i] == 0) throw_zero_bound(i);
  Vector out = reuse_or_allocate(std::move(bounds), Type::Int, n);
  draw_random(elements<std::int32_t>(out), n, bound, 0, stream);
  return out;
}

}  // namespace cvl::cpu
