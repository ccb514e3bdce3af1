// cvl-cpu specifics: a moved-in last handle really is reused (the in-place path the benchmarks
// rely on), and a shared one never is.
#include "support.hpp"

namespace cvl_test {

TEST_CASE("cvl-cpu reuses the memory of last-use operands", "[cpu][value-semantics]") {
  cvl::Backend& b = reference_backend();
  cvl::Vector a = ints(b, Ints(1000, 3));
  const cvl::Storage* memory = a.storage.get();
  cvl::Vector sum = ew(b, Op::Add, Type::Int, std::move(a), ints(b, Ints(1000, 4)));
  CHECK(sum.storage.get() == memory);
  cvl::Vector scanned = b.scan(Op::PlusScan, std::move(sum), segdes(b, {1000}));
  CHECK(scanned.storage.get() == memory);
  CHECK(to_ints(b, scanned)[999] == 999 * 7);

  cvl::Vector shared = scanned;
  cvl::Vector other = b.scan(Op::PlusScan, std::move(scanned), segdes(b, {1000}));
  CHECK(other.storage.get() != memory);
  CHECK(to_ints(b, shared)[999] == 999 * 7);
}

}  // namespace cvl_test
