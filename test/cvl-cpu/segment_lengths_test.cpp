// LENGTHS as cvl-cpu makes it (storage.hpp's lengths_vector): the lengths of a descriptor are
// written only when read, MAKE_SEGDES of them is that descriptor again, and +_REDUCE and +_SCAN
// of them by segments are computed from its offsets; each gives what the written lengths give,
// over empty segments and at one and two threads, and an op that writes into the lengths'
// memory leaves nothing of the descriptor behind. Lengths known to be all alike are not read.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "families/families.hpp"
#include "test_vectors.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;

// Lengths of 0 to 9 (a tenth of them empty), `count` of them.
std::vector<std::int32_t> random_lengths(std::mt19937& random, std::size_t count) {
  std::vector<std::int32_t> lengths(count);
  for (auto& n : lengths) n = random() % 10 == 0 ? 0 : static_cast<std::int32_t>(random() % 9 + 1);
  return lengths;
}

TEST_CASE("LENGTHS is its descriptor's lengths, and MAKE_SEGDES of them that descriptor",
          "[segment_lengths]") {
  std::mt19937 random(17);
  const Context ctx = context(1, true);
  for (std::size_t count : {std::size_t{1}, std::size_t{200}, kDeferredFillMin, std::size_t{5000}}) {
    INFO(count << " segments");
    const std::vector<std::int32_t> lengths = random_lengths(random, count);
    const Segdes sd = segdes_from_lengths(ctx.par, ints(lengths), "MAKE_SEGDES");
    const Vector got = segment_lengths(sd);
    REQUIRE(lengths_descriptor(got) != nullptr);
    CHECK(lengths_descriptor(got)->storage == sd.storage);
    const Segdes again = segdes_from_lengths(ctx.par, got, "MAKE_SEGDES");
    CHECK(again.storage == sd.storage);
    CHECK(again.total == sd.total);
    CHECK(values_of<std::int32_t>(got) == lengths);
  }
}

TEST_CASE("+_REDUCE and +_SCAN of LENGTHS by segments are those of the written lengths",
          "[segment_lengths]") {
  std::mt19937 random(23);
  for (int threads : {1, 2}) {
    const Context ctx = context(threads, true);
    for (std::size_t count : {std::size_t{300}, std::size_t{70000}}) {
      INFO(threads << " threads, " << count << " inner segments");
      const std::vector<std::int32_t> lengths = random_lengths(random, count);
      const Segdes inner = segdes_from_lengths(ctx.par, ints(lengths), "MAKE_SEGDES");
      // Outer segments over the inner ones, some empty; the last takes what is left.
      std::vector<std::int32_t> outer_lengths;
      std::size_t left = count;
      while (left > 0) {
        const auto n = std::min<std::size_t>(left, random() % 5 == 0 ? 0 : random() % 40 + 1);
        outer_lengths.push_back(static_cast<std::int32_t>(n));
        left -= n;
      }
      outer_lengths.push_back(0);
      const Segdes outer = segdes_from_lengths(ctx.par, ints(outer_lengths), "MAKE_SEGDES");
      for (Op op : {Op::PlusReduce, Op::PlusScan}) {
        INFO(vcode::spelling(op));
        const Vector from_descriptor = segment_lengths(inner);
        REQUIRE(lengths_descriptor(from_descriptor) != nullptr);
        const bool folds = op == Op::PlusReduce;
        const Vector got = folds ? reduce(ctx, op, from_descriptor, view(outer))
                                 : scan(ctx, op, from_descriptor, view(outer));
        const Vector want = folds ? reduce(ctx, op, ints(lengths), view(outer))
                                  : scan(ctx, op, ints(lengths), view(outer));
        CHECK(values_of<std::int32_t>(got) == values_of<std::int32_t>(want));
      }
      // Not by segments of them: folded as any vector is.
      const Vector all = reduce(ctx, Op::PlusReduce, segment_lengths(inner),
                                view(segdes_from_lengths(ctx.par, ints({static_cast<std::int32_t>(count)}),
                                                         "MAKE_SEGDES")));
      CHECK(values_of<std::int32_t>(all) == std::vector<std::int32_t>{static_cast<std::int32_t>(view(inner).total)});
    }
  }
}

TEST_CASE("an op writing into LENGTHS' memory leaves no descriptor behind", "[segment_lengths]") {
  const Context eager = context(1, false);
  std::vector<std::int32_t> lengths(1000, 2);
  lengths[7] = 5;
  const Segdes sd = segdes_from_lengths(eager.par, ints(lengths), "MAKE_SEGDES");
  Vector taken = segment_lengths(sd);
  const Storage* memory = taken.storage.get();
  std::vector<Vector> operands;
  operands.push_back(std::move(taken));
  operands.push_back(ints(std::vector<std::int32_t>(lengths.size(), 1)));
  const Vector plus_one = elementwise(eager, Op::Add, Type::Int, operands);
  REQUIRE(plus_one.storage.get() == memory);  // written in place, at the lengths' last use
  CHECK(lengths_descriptor(plus_one) == nullptr);
  const Segdes made = segdes_from_lengths(eager.par, plus_one, "MAKE_SEGDES");
  CHECK(made.storage != sd.storage);
  CHECK(made.total == view(sd).total + lengths.size());
}

// The offsets a descriptor holds, read through its view.
std::vector<SegOffset> offsets_of(const Segdes& sd) {
  const SegmentView v = view(sd);
  return std::vector<SegOffset>(v.offsets, v.offsets + v.segments + 1);
}

TEST_CASE("MAKE_SEGDES of lengths known alike reads none: one-element segments share offsets",
          "[segment_lengths]") {
  const Context ctx = context(1, true);
  for (std::int32_t length : {0, 1, 3}) {
    for (std::size_t count : {std::size_t{5}, kDeferredFillMin, std::size_t{50000}}) {
      INFO(count << " segments of " << length);
      const std::vector<std::int32_t> written(count, length);
      // A DIST of a constant is known alike; its elements are never written.
      const Segdes one = segdes_from_lengths(ctx.par, ints({static_cast<std::int32_t>(count)}), "MAKE_SEGDES");
      const Vector alike = distribute(ctx, ints({length}), view(one), one);
      REQUIRE(uniform_bits(alike) == static_cast<std::uint64_t>(length));
      const Segdes got = segdes_from_lengths(ctx.par, alike, "MAKE_SEGDES");
      const Segdes want = segdes_from_lengths(ctx.par, ints(written), "MAKE_SEGDES");
      CHECK(got.segments == want.segments);
      CHECK(got.total == want.total);
      CHECK(view(got).uniform == view(want).uniform);
      CHECK(offsets_of(got) == offsets_of(want));
      CHECK(values_of<std::int32_t>(segment_lengths(got)) == written);
      // Its lengths spread over segments of their own (a DIST, as flattened code spreads a
      // nested value) are known alike too, so a descriptor made of them reads none either.
      const Segdes pairs = segdes_from_lengths(ctx.par, ints(std::vector<std::int32_t>(count, 2)), "MAKE_SEGDES");
      const Vector spread = distribute(ctx, segment_lengths(got), view(pairs), pairs);
      CHECK(uniform_bits(spread) == (length > 0 ? std::optional<std::uint64_t>(length) : std::nullopt));
      CHECK(values_of<std::int32_t>(spread) == std::vector<std::int32_t>(2 * count, length));
    }
  }
  // Two descriptors of one-element segments share the offsets of the longer made first.
  const Segdes one = segdes_from_lengths(ctx.par, ints({9000}), "MAKE_SEGDES");
  const Segdes longer = segdes_from_lengths(ctx.par, distribute(ctx, ints({1}), view(one), one), "MAKE_SEGDES");
  const Segdes few = segdes_from_lengths(ctx.par, ints({300}), "MAKE_SEGDES");
  const Segdes shorter = segdes_from_lengths(ctx.par, distribute(ctx, ints({1}), view(few), few), "MAKE_SEGDES");
  CHECK(view(shorter).offsets == view(longer).offsets);
  CHECK(view(shorter).total == 300);
  CHECK(view(shorter).offsets[300] == 300);
  // A negative length known alike is refused as a written one is.
  const Vector negative = distribute(ctx, ints({-2}), view(few), few);
  REQUIRE(uniform_bits(negative).has_value());
  CHECK_THROWS_WITH(segdes_from_lengths(ctx.par, negative, "MAKE_SEGDES"),
                    Catch::Contains("negative segment length"));
}

}  // namespace
}  // namespace cvl::cpu
