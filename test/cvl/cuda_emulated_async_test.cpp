// cvl-cuda under real asynchrony: the small results that ride back at a synchronization are only
// ever results whose work was queued (a synchronization inside an operation, between taking a
// result buffer and queueing its kernel, once gave radix sort stale indices), and the emulation's
// asynchronous mode (--emulate-async) runs the device late on a thread of its own without
// changing what a program computes or what --profile counts.
#include <string>

#include "cvl_cuda/cvl_cuda.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

std::unique_ptr<cvl::Backend> emulated(long long threshold, std::uint64_t async_seed) {
  cvl::BackendOptions options{.threads = 1};
  options.host_threshold = threshold;
  options.emulate_async_seed = async_seed;
  return cvl::make_cuda_emulated_backend(options);
}

// A device vector of `per_segment.size()` elements, the sums of as many 16-element runs of a
// device vector: a small result of device work, with no host copy until a synchronization.
cvl::Vector small_device_result(cvl::Backend& b, const Ints& per_segment) {
  Ints data(16 * per_segment.size(), 0);
  Ints lengths;
  for (std::size_t k = 0; k < per_segment.size(); ++k) {
    data[16 * k] = per_segment[k];
    lengths.push_back(16);
  }
  return b.reduce(Op::PlusReduce, ints(b, data), segdes(b, lengths));
}

}  // namespace

TEST_CASE("cuda-emulated: a synchronization inside an operation brings back none of its results",
          "[cuda][residency][async]") {
  const std::uint64_t seed = GENERATE(0u, 1u, 2u);
  INFO("--emulate-async " << seed);
  auto owner = emulated(16, seed);  // vectors of at most 16 elements come back at a wait
  cvl::Backend& b = *owner;

  SECTION("a buffer taken over as the result: its old note no longer rides") {
    cvl::Vector v = small_device_result(b, {16, 16, 16, 16});
    // A descriptor of two segments of 2 whose total is pending with PACK's bound, 64: REPLACE
    // synchronizes to check that v's 4 elements hold it, after v's buffer became the result and
    // before the kernel is queued.
    Bools keep(64, 0);
    keep[0] = keep[5] = keep[32] = keep[40] = 1;
    const cvl::Segdes sd = b.pack(ints(b, Ints(64, 0)), bools(b, keep), segdes(b, {32, 32})).second;
    REQUIRE_FALSE(sd.total.known());
    const std::uint64_t syncs = b.stats().host_syncs;
    cvl::Vector r = b.replace(std::move(v), ints(b, {0, 1}), ints(b, {5, 7}), sd);
    REQUIRE(b.stats().host_syncs == syncs + 1);
    CHECK(to_ints(b, r) == Ints{5, 16, 16, 7});  // element 0 of the first segment, 1 of the second
  }

  SECTION("a new result buffer: it does not ride before its kernel is queued") {
    const cvl::Vector values = ints(b, Ints(64, 3));
    const cvl::Segdes sd = segdes(b, {16, 16, 16, 16});
    const cvl::Vector divisors = ints(b, Ints(64, 1));
    // Every slot of the fault board taken by operations queued since the last wait...
    std::vector<cvl::Vector> quotients;
    for (int i = 0; i < 256; ++i) quotients.push_back(ew(b, Op::Div, Type::Int, values, divisors));
    // ...so EXTRACT's own fault word waits for them, after its result was allocated.
    const std::uint64_t syncs = b.stats().host_syncs;
    cvl::Vector e = b.extract(values, small_device_result(b, {1, 2, 3, 4}), sd);
    REQUIRE(b.stats().host_syncs == syncs + 1);
    CHECK(to_ints(b, e) == Ints{3, 3, 3, 3});
  }
}

TEST_CASE("cuda-emulated --emulate-async: the same results and the same counts as at once",
          "[cuda][async]") {
  // A little of everything: uploads, device work with pending counts (PACK, MAKE_SEGDES of
  // device lengths), a scatter, a sort, small results riding back and the host path after them.
  auto run = [](cvl::Backend& b) {
    std::mt19937_64 rng(11);
    const Ints data = random_ints(20000, -50, 50, rng);
    const cvl::Segdes halves = segdes(b, {10000, 10000});
    cvl::Vector x = ints(b, data);
    cvl::Vector positive = ew(b, Op::Greater, Type::Int, x, b.distribute(ints(b, {0, 0}), halves));
    auto [packed, packed_sd] = b.pack(x, positive, halves);
    cvl::Vector counts = b.segment_lengths(packed_sd);
    cvl::Vector sums = b.reduce(Op::PlusReduce, packed, packed_sd);
    cvl::Vector ranks = b.rank(Op::RankUp, packed, packed_sd);
    cvl::PermuteOperands scatter;
    scatter.values = packed;
    scatter.indices = ranks;
    scatter.source_segdes = packed_sd;
    cvl::Vector sorted = b.permute(Op::Permute, std::move(scatter));
    const cvl::Segdes again = b.make_segdes(ew(b, Op::Add, Type::Int, counts, counts));
    cvl::Vector spread = b.distribute(sums, again);
    Ints result = to_ints(b, sorted);
    for (std::int32_t s : to_ints(b, spread)) result.push_back(s);
    for (std::int32_t s : to_ints(b, ew(b, Op::Add, Type::Int, sums, counts))) result.push_back(s);
    return result;
  };
  for (long long threshold : {0LL, -1LL}) {
    auto at_once = emulated(threshold, 0);
    auto late = emulated(threshold, 7);
    CHECK(run(*late) == run(*at_once));
    const cvl::BackendStats a = at_once->stats(), l = late->stats();
    CHECK(l.kernel_launches == a.kernel_launches);
    CHECK(l.host_syncs == a.host_syncs);
    CHECK(l.device_copies == a.device_copies);
    CHECK(l.device_bytes_moved == a.device_bytes_moved);
    CHECK(l.bytes_to_device == a.bytes_to_device);
    CHECK(l.bytes_to_host == a.bytes_to_host);
    CHECK(l.device_bytes_peak == a.device_bytes_peak);
  }
}

TEST_CASE("cuda-emulated --emulate-async: a fault found by a kernel is raised at the next wait",
          "[cuda][async][errors]") {
  auto owner = emulated(0, 3);
  cvl::Backend& b = *owner;
  REQUIRE(b.operation_sites());
  b.operation_sites()->operation_site(4);
  cvl::Vector q;
  REQUIRE_NOTHROW(q = ew(b, Op::Div, Type::Int, ints(b, {4, 4}), ints(b, {2, 0})));
  b.operation_sites()->operation_site(5);
  try {
    b.synchronize();
    FAIL("the division by zero was not raised");
  } catch (const cvl::DeferredError& e) {
    CHECK(e.site == 4);
    CHECK(std::string(e.what()) == "division by zero");
  }
  CHECK_NOTHROW(b.synchronize());  // reported once
}

}  // namespace cvl_test
