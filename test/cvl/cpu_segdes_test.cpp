// cvl-cpu keeps a descriptor as 32-bit offsets only: LENGTHS computes the lengths back from them.
// A total past the longest vector makes a wide descriptor (64-bit offsets): what streams over it
// runs, what would store a vector that long is refused with the interpreter's message for it.
#include "cvl_cpu/cvl_cpu.hpp"
#include "support.hpp"

namespace cvl_test {

TEST_CASE("cvl-cpu descriptors: lengths back from the offsets", "[cpu][segdes]") {
  cvl::Backend& b = reference_backend();
  const Ints lengths = {3, 0, 0, 7, 1, 0, 100000, 2};
  cvl::Segdes sd = segdes(b, lengths);
  CHECK(sd.segments == lengths.size());
  CHECK(sd.total == 100013);
  CHECK(to_ints(b, b.segment_lengths(sd)) == lengths);
}

TEST_CASE("cvl-cpu descriptors: a total past 2^31 - 1 is wide: streamed over, never stored",
          "[cpu][segdes][errors]") {
  cvl::Backend& eager = reference_backend();
  const Ints lengths = {1 << 30, 1 << 30, 5};
  const std::uint64_t total = (std::uint64_t{1} << 31) + 5;
  const std::string too_long = cvl::vector_too_long_message(total);
  cvl::Segdes sd = segdes(eager, lengths);
  CHECK(sd.total == total);
  CHECK(lengths_of(eager, sd) == lengths);
  CHECK(eager.longest_descriptor_total() > cvl::kMaxVectorLength);
  // One below the limit is an ordinary descriptor.
  CHECK(segdes(eager, {1 << 30, (1 << 30) - 1}).total == 2147483647);
  // Eager, an INDEX or DIST over it would be stored.
  CHECK_THROWS_WITH(eager.index(ints(eager, {0, 0, 0}), ints(eager, {1, 1, 1}), sd), too_long);
  CHECK_THROWS_WITH(eager.distribute(ints(eager, {1, 2, 3}), sd), too_long);

  cvl::BackendOptions options{1, cvl::FloatRankOrder::Correct};
  options.lazy_elementwise = true;
  const auto owner = cvl::make_cpu_backend(options);
  cvl::Backend& b = *owner;
  sd = segdes(b, lengths);
  // Pending: nothing of that length is made until read.
  cvl::Vector index = b.index(ints(b, {0, 0, 0}), ints(b, {1, 1, 1}), sd);
  CHECK(index.length == total);
  cvl::Vector floats = ew(b, Op::IntToFloat, Type::Int, std::move(index));
  // What must be stored is refused: a scan's result, a pack, the values themselves.
  CHECK_THROWS_WITH(b.scan(Op::PlusScan, floats, sd), too_long);
  CHECK_THROWS_WITH(b.pack(floats, b.distribute(bools(b, {true, false, true}), sd), sd), too_long);
  double first = 0;
  CHECK_THROWS_WITH(b.download(floats, 0, 1, &first), too_long);
  // A descriptor's lengths are one INT per segment: their sum wraps as INT arithmetic does.
  CHECK(to_ints(b, b.reduce(Op::PlusReduce, b.segment_lengths(sd), segdes(b, {3}))) ==
        Ints{static_cast<std::int32_t>(total - (std::uint64_t{1} << 32))});
  // A descriptor made of such a sum is refused as the count it is, not as the negative length it
  // wrapped to (a flattened program's count of the elements of a level past an INT).
  CHECK_THROWS_WITH(b.make_segdes(b.reduce(Op::PlusReduce, b.segment_lengths(sd), segdes(b, {3}))),
                    "MAKE_SEGDES: a segment of " + std::to_string(total) +
                        " elements, more than a vector may hold (2147483647)");
  // A sum that fits is made into a descriptor as before.
  CHECK(b.make_segdes(b.reduce(Op::PlusReduce, b.segment_lengths(sd), segdes(b, {1, 2}))).total == total);
}

}  // namespace cvl_test
