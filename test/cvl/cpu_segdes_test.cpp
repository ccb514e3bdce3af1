// cvl-cpu keeps a descriptor as 32-bit offsets only: LENGTHS computes the lengths back from them,
// and a total past the longest vector is refused before the offsets are built (with the message
// the interpreter gives for it).
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

TEST_CASE("cvl-cpu descriptors: a total past 2^31 - 1 is an error", "[cpu][segdes][errors]") {
  cvl::Backend& b = reference_backend();
  REQUIRE_THROWS_WITH(segdes(b, {1 << 30, 1 << 30}),
                      cvl::vector_too_long_message(std::uint64_t{1} << 31));
  CHECK(segdes(b, {1 << 30, (1 << 30) - 1}).total == 2147483647);
}

}  // namespace cvl_test
