// LENGTHS as cvl-cpu makes it (storage.hpp's lengths_vector): the lengths of a descriptor are
// written only when read, MAKE_SEGDES of them is that descriptor again, and +_REDUCE and +_SCAN
// of them by segments are computed from its offsets; each gives what the written lengths give,
// over empty segments and at one and two threads, and an op that writes into the lengths'
// memory leaves nothing of the descriptor behind.
#include <catch2/catch.hpp>

#include <cstdint>
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

}  // namespace
}  // namespace cvl::cpu
