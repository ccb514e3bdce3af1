// cvl-cuda specifics, on its host emulation (the same residency, pool and fault logic as the GPU
// build): small host-resident operations stay on the host without a launch, large ones launch,
// last-use operands are reused, the pool's accounting returns to where it was, and faults found
// by kernels are raised at the next synchronization unless sync_each_op (also where the operation
// synchronized between taking its fault word and queueing its kernel), and FUSED uploads a
// superoperator's nodes once, and a total made on the device past 2^31 - 1 is refused before
// anything of that length is allocated, and a Thrust failure is a device failure.
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "check.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "cvl_cuda/cvl_cuda.hpp"
#include "fused_support.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

std::unique_ptr<cvl::Backend> emulated(long long threshold, bool sync_each_op = false) {
  return cvl::make_cuda_emulated_backend(
      {1, cvl::FloatRankOrder::Correct, 0, threshold, sync_each_op});
}

// The kernels `b` launches while `operation` runs.
template <class Operation>
std::uint64_t launches_during(cvl::Backend& b, Operation&& operation) {
  const std::uint64_t before = b.stats().kernel_launches;
  operation();
  return b.stats().kernel_launches - before;
}

}  // namespace

TEST_CASE("cuda-emulated: small host-resident operations run on the host", "[cuda][residency]") {
  auto owner = emulated(-1);
  cvl::Backend& b = *owner;
  cvl::Vector x = ints(b, {1, 2, 3});
  const cvl::BackendStats before = b.stats();
  cvl::Vector y = ew(b, Op::Add, Type::Int, x, x);
  cvl::Vector s = b.scan(Op::PlusScan, y, segdes(b, {3}));
  cvl::Vector flag = ew(b, Op::Less, Type::Int, x, y);
  Bools out(1);
  b.download(flag, 0, 1, out.data());  // an IF's boolean: no round trip
  const cvl::BackendStats after = b.stats();
  CHECK(after.kernel_launches == before.kernel_launches);
  CHECK(after.host_syncs == before.host_syncs);
  CHECK(after.bytes_to_device == before.bytes_to_device);
  CHECK(to_ints(b, s) == Ints{0, 2, 6});
}

TEST_CASE("cuda-emulated: small device results come back with the next synchronization",
          "[cuda][residency]") {
  auto owner = emulated(-1);
  cvl::Backend& b = *owner;
  cvl::Backend& ref = reference_backend();
  const std::int32_t half = 50000;
  const cvl::Vector big = ints(b, Ints(2 * half, 1));  // on the device
  const cvl::Segdes halves = segdes(b, {half, half});
  auto launches_since = [&](const cvl::BackendStats& before) {
    return b.stats().kernel_launches - before.kernel_launches;
  };

  // Small results of device work stay on the device until a synchronization...
  cvl::Vector counts = b.reduce(Op::PlusReduce, big, halves);
  cvl::BackendStats before = b.stats();
  cvl::Vector doubled = ew(b, Op::Add, Type::Int, counts, counts);
  CHECK(launches_since(before) == 1);
  // ...which brings every live one back in its own wait: one launch gathers them all.
  before = b.stats();
  b.synchronize();
  CHECK(b.stats().host_syncs == before.host_syncs + 1);
  CHECK(launches_since(before) == 1);
  // From then on, small operations on them run on the host: no launch, no wait.
  before = b.stats();
  cvl::Vector sum = ew(b, Op::Add, Type::Int, doubled, counts);
  const cvl::Segdes by_counts = b.make_segdes(counts);
  CHECK(to_ints(b, sum) == Ints{3 * half, 3 * half});
  CHECK(launches_since(before) == 0);
  CHECK(b.stats().host_syncs == before.host_syncs);

  // A descriptor made on the host gets its device offsets by a copy, not a launch: spreading
  // over it is one launch.
  before = b.stats();
  const cvl::Vector spread = b.distribute(ints(b, {4, 9}), by_counts);
  CHECK(launches_since(before) == 1);
  CHECK(to_ints(b, spread) ==
        to_ints(ref, ref.distribute(ints(ref, {4, 9}), segdes(ref, {half, half}))));

  // A vector that came back and is then reused on the device as a result loses its host copy:
  // reads see the new data, and it comes back again at the next synchronization.
  cvl::Vector fresh = b.reduce(Op::MaxReduce, big, halves);  // on the device only
  const cvl::Storage* memory = doubled.storage.get();
  cvl::Vector reused = ew(b, Op::Add, Type::Int, std::move(doubled), fresh);
  CHECK(reused.storage.get() == memory);
  CHECK(to_ints(b, reused) == Ints{2 * half + 1, 2 * half + 1});
  before = b.stats();
  CHECK(to_ints(b, ew(b, Op::Add, Type::Int, reused, fresh)) == Ints{2 * half + 2, 2 * half + 2});
  CHECK(launches_since(before) == 0);

  // Many small device operations between two waits, each reusing the last one's buffer: the one
  // vector left comes back once, with its last value.
  cvl::Vector ones = b.reduce(Op::MaxReduce, big, halves);  // {1, 1} on the device
  cvl::Vector running = b.reduce(Op::PlusReduce, big, halves);
  for (int k = 0; k < 500; ++k) running = ew(b, Op::Add, Type::Int, std::move(running), ones);
  b.synchronize();
  before = b.stats();
  CHECK(to_ints(b, ew(b, Op::Add, Type::Int, running, ones)) == Ints{half + 501, half + 501});
  CHECK(launches_since(before) == 0);
}

TEST_CASE("cuda-emulated: one small result comes back with no launch, several with one",
          "[cuda][residency][launches]") {
  auto owner = emulated(-1);
  cvl::Backend& b = *owner;
  const cvl::Vector big = ints(b, Ints(100000, 1));  // on the device
  const cvl::Segdes halves = segdes(b, {60000, 40000});
  auto launches_of = [&](auto&& operation) { return launches_during(b, operation); };
  const cvl::Vector counts = b.reduce(Op::PlusReduce, big, halves);
  CHECK(launches_of([&] { b.synchronize(); }) == 0);  // copied from where it is
  std::uint64_t syncs = b.stats().host_syncs;
  CHECK(launches_of([&] { CHECK(to_ints(b, counts) == Ints{60000, 40000}); }) == 0);
  CHECK(b.stats().host_syncs == syncs);  // it came back with that synchronization
  const cvl::Vector most = b.reduce(Op::MaxReduce, big, halves);
  const cvl::Vector least = b.reduce(Op::MinReduce, big, halves);
  CHECK(launches_of([&] { b.synchronize(); }) == 1);  // gathered into one copy
  syncs = b.stats().host_syncs;
  CHECK(to_ints(b, most) == Ints{1, 1});
  CHECK(to_ints(b, least) == Ints{1, 1});
  CHECK(b.stats().host_syncs == syncs);
}

TEST_CASE("cuda-emulated: large operations run on the device, data moves once",
          "[cuda][residency]") {
  auto owner = emulated(-1);
  cvl::Backend& b = *owner;
  const std::size_t n = 100000;
  cvl::Vector big = ints(b, Ints(n, 2));  // above the threshold: uploaded to the device
  const cvl::BackendStats uploaded = b.stats();
  CHECK(uploaded.bytes_to_device == n * sizeof(std::int32_t));
  cvl::Vector sum = ew(b, Op::Add, Type::Int, big, big);
  cvl::Vector total = b.reduce(Op::PlusReduce, sum, segdes(b, {static_cast<std::int32_t>(n)}));
  const cvl::BackendStats after = b.stats();
  CHECK(after.kernel_launches > uploaded.kernel_launches);
  CHECK(to_ints(b, total) == Ints{static_cast<std::int32_t>(4 * n)});
  // A small host vector meeting a large device one moves to the device once.
  cvl::Vector small = ints(b, {7});
  cvl::Vector spread = b.distribute(small, segdes(b, {static_cast<std::int32_t>(n)}));
  cvl::Vector again = b.distribute(small, segdes(b, {static_cast<std::int32_t>(n)}));
  CHECK(to_ints(b, again)[n - 1] == 7);
}

TEST_CASE("cuda-emulated: a last-use operand becomes the result, a shared one never",
          "[cuda][value-semantics]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  cvl::Vector a = ints(b, Ints(1000, 3));
  const cvl::Storage* memory = a.storage.get();
  cvl::Vector sum = ew(b, Op::Add, Type::Int, std::move(a), ints(b, Ints(1000, 4)));
  CHECK(sum.storage.get() == memory);
  cvl::Vector scanned = b.scan(Op::PlusScan, std::move(sum), segdes(b, {1000}));
  CHECK(scanned.storage.get() == memory);
  cvl::Vector shared = scanned;
  cvl::Vector other = b.scan(Op::PlusScan, std::move(scanned), segdes(b, {1000}));
  CHECK(other.storage.get() != memory);
  CHECK(to_ints(b, shared)[999] == 999 * 7);
}

TEST_CASE("cuda-emulated: pool accounting returns to its baseline", "[cuda][memory]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  const std::uint64_t baseline = b.stats().device_bytes_in_use;
  {
    cvl::Vector v = floats(b, Floats(50000, 1.5));
    CHECK(b.stats().device_bytes_in_use >= baseline + 50000 * sizeof(double));
    cvl::Vector r = b.rank(Op::RankUp, v, segdes(b, {20000, 30000}));
    CHECK(b.stats().device_bytes_peak >= b.stats().device_bytes_in_use);
  }
  CHECK(b.stats().device_bytes_in_use == baseline);
}

TEST_CASE("cuda-emulated: kernel faults are raised at the next synchronization", "[cuda][errors]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  cvl::PermuteOperands o;
  o.values = ints(b, {1, 2, 3});
  o.indices = ints(b, {0, 5, 1});
  o.source_segdes = segdes(b, {3});
  o.dest_segdes = segdes(b, {3});
  cvl::Vector gathered;
  REQUIRE_NOTHROW(gathered = b.permute(Op::BPermute, std::move(o)));  // queued, not yet known
  using Catch::Matchers::StartsWith;
  CHECK_THROWS_WITH(b.synchronize(),
                    StartsWith("BPERMUTE: index 5 at position 1 is outside its segment of length 3 "
                               "(found at a later synchronization"));
  CHECK_NOTHROW(b.synchronize());  // reported once

  cvl::Vector q = ew(b, Op::Div, Type::Int, ints(b, {4, 4}), ints(b, {2, 0}));
  Ints out(2);
  CHECK_THROWS_WITH(b.download(q, 0, 2, out.data()), StartsWith("division by zero ("));

  auto exact = emulated(0, true);  // sync_each_op: the faulting operation itself throws
  CHECK_THROWS_WITH(ew(*exact, Op::Mod, Type::Int, ints(*exact, {1}), ints(*exact, {0})),
                    "division by zero");

  // A caller that names each instruction (vinterp) gets the faulting one back, with no note.
  REQUIRE(b.operation_sites());
  b.operation_sites()->operation_site(7);
  cvl::Vector faulty = ew(b, Op::Div, Type::Int, ints(b, {4, 4}), ints(b, {0, 1}));
  b.operation_sites()->operation_site(8);
  cvl::Vector fine = ew(b, Op::Add, Type::Int, ints(b, {4, 4}), ints(b, {0, 1}));
  try {
    b.synchronize();
    FAIL("the division by zero was not raised");
  } catch (const cvl::DeferredError& e) {
    CHECK(e.site == 7);
    CHECK(std::string(e.what()) == "division by zero");
  }
}

TEST_CASE("cuda-emulated: a fault is kept when its operation synchronizes before its kernel",
          "[cuda][errors][speculation]") {
  // Descriptors made on the device with speculation have a guessed total, larger than the
  // 6-element operands: the gathers, the permutes into defaults and EXTRACT/REPLACE wait for the
  // count (holds()) after taking their fault word, then queue the kernel that writes it.
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  REQUIRE(b.speculation());
  b.speculation()->allow_speculation(true);
  const auto guessed = [&] {
    cvl::Segdes sd = b.make_segdes(ints(b, {3, 3}));
    REQUIRE_FALSE(sd.total.known());
    return sd;
  };
  const Ints values{10, 11, 12, 13, 14, 15};
  const Ints indices{0, 1, 2, 0, 3, 1};  // 3 leaves the second segment
  const auto permute_fails = [&](Op op) {
    cvl::PermuteOperands o;
    o.values = ints(b, values);
    o.indices = ints(b, indices);
    if (vcode::permute_has_flags(op)) o.flags = bools(b, Bools(6, 1));
    if (vcode::permute_has_defaults(op)) o.defaults = ints(b, Ints(6, 0));
    o.source_segdes = guessed();
    o.dest_segdes = guessed();
    const std::string name(vcode::spelling(op));
    INFO(name);
    cvl::Vector out = b.permute(op, std::move(o));
    CHECK_THROWS_WITH(b.synchronize(), Catch::Matchers::StartsWith(
                                           name + ": index 3 at position 4 is outside its "
                                                  "segment of length 3"));
  };
  for (Op op : {Op::BPermute, Op::BFPermute, Op::DPermute, Op::DFPermute, Op::Permute,
                Op::FPermute})
    permute_fails(op);
  cvl::Vector extracted = b.extract(ints(b, values), ints(b, {1, 3}), guessed());
  CHECK_THROWS_WITH(b.synchronize(),
                    Catch::Matchers::StartsWith(
                        "EXTRACT: index 3 at position 1 is outside its segment of length 3"));
  cvl::Vector replaced = b.replace(ints(b, values), ints(b, {1, 3}), ints(b, {7, 8}), guessed());
  CHECK_THROWS_WITH(b.synchronize(),
                    Catch::Matchers::StartsWith(
                        "REPLACE: index 3 at position 1 is outside its segment of length 3"));
  CHECK_NOTHROW(b.synchronize());  // each reported once
}

TEST_CASE("cuda-emulated: a Thrust failure is a device failure, not an internal error",
          "[cuda][errors]") {
  const auto failing_sort = [] {
    throw thrust::system_error(thrust::error_code(12, thrust::system_category()), "sort_by_key");
  };
  try {
    cvl::cuda_emulated::thrust_checked(failing_sort);
    FAIL("the Thrust failure was not raised");
  } catch (const cvl::DeviceError& e) {
    CHECK(std::string(e.what()).rfind("Thrust error: sort_by_key", 0) == 0);
  }
  CHECK_NOTHROW(cvl::cuda_emulated::thrust_checked([] {}));
}

TEST_CASE("cuda-emulated: a device total past 2^31 - 1 is refused before it is allocated",
          "[cuda][errors][memory]") {
  auto owner = emulated(0);  // the lengths live on the device: their total is a pending count
  cvl::Backend& b = *owner;
  const cvl::Segdes sd = b.make_segdes(ints(b, {2000000000, 2000000000}));
  REQUIRE_FALSE(sd.total.known());
  const std::uint64_t peak = b.stats().device_bytes_peak;
  CHECK_THROWS_WITH(b.distribute(ints(b, {7, 7}), sd), cvl::vector_too_long_message(4000000000));
  CHECK(b.stats().device_bytes_peak < peak + (1 << 20));  // not the 16 GB of the DIST
}

TEST_CASE("cuda-emulated: FLOAT MAX/MIN with NaNs follow the sequential order exactly",
          "[cuda][scan][reduce]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  cvl::Backend& ref = reference_backend();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::mt19937_64 rng(77);
  Floats v = random_floats(5000, -1e6, 1e6, rng);
  for (std::size_t i = 0; i < v.size(); i += 97) v[i] = nan;
  v[4999] = nan;
  v[10] = -std::numeric_limits<double>::infinity();
  const Ints lengths = {1, 0, 2000, 7, 1, 2991};
  for (Op op : {Op::MaxScan, Op::MinScan}) {
    auto got = download(b, b.scan(op, floats(b, v), segdes(b, lengths)));
    auto want = download(ref, ref.scan(op, floats(ref, v), segdes(ref, lengths)));
    check_equal(got, want);
  }
  for (Op op : {Op::MaxReduce, Op::MinReduce}) {
    auto got = download(b, b.reduce(op, floats(b, v), segdes(b, lengths)));
    auto want = download(ref, ref.reduce(op, floats(ref, v), segdes(ref, lengths)));
    check_equal(got, want);
  }
}

TEST_CASE("cuda-emulated: many empty and one-element segments around a giant one",
          "[cuda][layouts]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  cvl::Backend& ref = reference_backend();
  Ints lengths(30000, 0);
  for (std::size_t k = 0; k < lengths.size(); k += 3) lengths[k] = 1;
  lengths[15000] = 200000;
  std::mt19937_64 rng(5);
  const std::size_t n = total_of(lengths);
  const Ints v = random_ints(n, -1000, 1000, rng);
  for (Op op : {Op::PlusReduce, Op::MaxReduce}) {
    check_equal(to_ints(b, b.reduce(op, ints(b, v), segdes(b, lengths))),
                to_ints(ref, ref.reduce(op, ints(ref, v), segdes(ref, lengths))));
  }
  check_equal(to_ints(b, b.rank(Op::RankDown, ints(b, v), segdes(b, lengths))),
              to_ints(ref, ref.rank(Op::RankDown, ints(ref, v), segdes(ref, lengths))));
  check_equal(to_ints(b, b.scan(Op::PlusScan, ints(b, v), segdes(b, lengths))),
              to_ints(ref, ref.scan(Op::PlusScan, ints(ref, v), segdes(ref, lengths))));
}

}  // namespace cvl_test

namespace cvl_test {

// The 2012 port mishandled vectors above 16,776,960 elements (a 24-bit grid limit); every size
// here is 64-bit and every launch a grid-stride loop.
TEST_CASE("cuda-emulated: vectors above 2^24 elements", "[cuda][large]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  const std::size_t n = 20'000'000;
  const auto length = static_cast<std::int32_t>(n);
  Ints x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>(i % 7) - 3;
  const cvl::Segdes sd = segdes(b, {length / 2, length - length / 2});
  cvl::Vector doubled = ew(b, Op::Add, Type::Int, ints(b, x), ints(b, x));
  const Ints sums = to_ints(b, b.reduce(Op::PlusReduce, doubled, sd));
  std::int64_t first = 0, second = 0;
  for (std::size_t i = 0; i < n; ++i) (i < n / 2 ? first : second) += 2 * x[i];
  CHECK(sums == Ints{static_cast<std::int32_t>(first), static_cast<std::int32_t>(second)});
  const Ints scanned = to_ints(b, b.scan(Op::MaxScan, doubled, sd));
  CHECK(scanned[n - 1] == 6);
  Ints last(1);
  cvl::Vector index = b.index(ints(b, {0, 0}), ints(b, {1, 1}), sd);
  b.download(index, n - 1, 1, last.data());
  CHECK(last[0] == length - length / 2 - 1);
}

TEST_CASE("cuda-emulated: FUSED uploads a superoperator's nodes once, not per call",
          "[cuda][fused][prepare]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  const vcode::SuperOp op =
      superop("SUPEROP 0 (FLOAT FLOAT) (+ FLOAT (* FLOAT $0 $1) (CONST FLOAT 1.0))");
  const auto prepared = b.prepare(op);
  std::vector<std::uint64_t> uploaded;
  for (int call = 0; call < 3; ++call) {
    std::vector<cvl::FusedOperand> operands(2);
    operands[0].vector = floats(b, Floats(1000, 2.0));
    operands[1].vector = floats(b, Floats(1000, 3.0));
    const std::uint64_t before = b.stats().bytes_to_device;
    cvl::Vector r = b.fused(*prepared, operands, 1000);
    uploaded.push_back(b.stats().bytes_to_device - before);
    CHECK(to_floats(b, r) == Floats(1000, 7.0));
  }
  // The first call uploads the node array; each call's operand views go with its launch.
  CHECK(uploaded[0] > 0);
  CHECK(uploaded[1] == 0);
  CHECK(uploaded[2] == 0);
}

TEST_CASE("cuda-emulated: a superoperator larger than the interpreter kernel runs op by op",
          "[cuda][fused]") {
  // ((($0 + $1) * $1) + $1) ... : 100 elementwise nodes, more than the kernel holds, with an
  // INT division by a constant among them and a reduction root.
  std::string body = "$0";
  for (int i = 0; i < 100; ++i)
    body = std::string(i % 3 == 2 ? "(* INT " : i % 3 == 1 ? "(/ INT " : "(+ INT ") + body +
           (i % 3 == 1 ? " (CONST INT 3))" : " $1)");
  const vcode::SuperOp op =
      superop("SUPEROP 0 (INT INT SEGDES) (+_REDUCE INT " + body + " $2)");
  for (long long threshold : {0LL, -1LL}) {
    auto owner = emulated(threshold);
    cvl::Backend& b = *owner;
    auto cpu = cvl::make_cpu_backend({1});
    auto run = [&](cvl::Backend& on) {
      std::vector<cvl::FusedOperand> operands(3);
      Ints a(5000), c(5000);
      for (int i = 0; i < 5000; ++i) a[i] = i - 2500, c[i] = i % 7 - 3;
      operands[0].vector = ints(on, a);
      operands[1].vector = ints(on, c);
      operands[2].segdes = segdes(on, {1000, 0, 4000});
      return to_ints(on, on.fused(op, operands, 5000));
    };
    CHECK(run(b) == run(*cpu));
  }
}

}  // namespace cvl_test

namespace cvl_test {

// Issue 9 (fewer launches): what each operation costs in launches, counted as the GPU build
// counts them, with its results checked against the sequential backend.
TEST_CASE("cuda-emulated: a scatter or gather makes pending INDEX and DIST operands in place",
          "[cuda][launches][pending]") {
  cvl::BackendOptions options{.threads = 1, .float_rank = cvl::FloatRankOrder::Correct};
  options.host_threshold = 0;
  options.lazy_elementwise = true;  // long INDEX and DIST results pending, as in vinterp
  auto owner = cvl::make_cuda_emulated_backend(options);
  cvl::Backend& b = *owner;
  cvl::Backend& ref = reference_backend();
  auto launches_of = [&](auto&& operation) { return launches_during(b, operation); };
  // One segment, and several (the first DIST over them runs at once and records their index, so
  // that the later ones wait): each segment reversed by an INDEX counting down.
  for (const Ints& lengths : std::vector<Ints>{{21000}, {0, 9000, 1, 0, 12000, 3}}) {
    INFO(lengths.size() << " segments");
    Ints last(lengths.size()), down(lengths.size(), -1), tags(lengths.size());
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      last[k] = lengths[k] - 1;
      tags[k] = static_cast<std::int32_t>(100 * k + 7);
    }
    auto run = [&](cvl::Backend& on, std::uint64_t* scatter_launches,
                   std::uint64_t* gather_launches) {
      const cvl::Segdes sd = segdes(on, lengths);
      const cvl::Vector spread = on.distribute(ints(on, tags), sd);  // stored: the index recorded
      const cvl::Vector starts = ints(on, last), strides = ints(on, down), values = ints(on, tags);
      cvl::PermuteOperands o;
      o.values = on.distribute(values, sd);
      o.indices = on.index(starts, strides, sd);
      o.source_segdes = sd;
      cvl::Vector scattered, gathered;
      *scatter_launches = launches_of([&] { scattered = on.permute(Op::Permute, std::move(o)); });
      cvl::PermuteOperands g;
      g.values = ew(on, Op::Add, Type::Int, scattered, spread);
      g.indices = on.index(starts, strides, sd);
      g.source_segdes = sd;
      g.dest_segdes = sd;
      const cvl::Vector stored_values = g.values;
      to_ints(on, stored_values);  // computed before the count
      *gather_launches = launches_of([&] { gathered = on.permute(Op::BPermute, std::move(g)); });
      return std::pair{to_ints(on, scattered), to_ints(on, gathered)};
    };
    std::uint64_t scatter_launches = 0, gather_launches = 0, unused = 0;
    const auto got = run(b, &scatter_launches, &gather_launches);
    CHECK(scatter_launches == 1);
    CHECK(gather_launches == 1);
    CHECK(got == run(ref, &unused, &unused));
  }
}

TEST_CASE("cuda-emulated: launches per scatter, reduction and descriptor use", "[cuda][launches]") {
  auto owner = emulated(0);
  cvl::Backend& b = *owner;
  cvl::Backend& ref = reference_backend();
  auto launches_of = [&](auto&& operation) { return launches_during(b, operation); };

  SECTION("a scatter with colliding targets is one launch, the highest source winning") {
    std::mt19937_64 rng(3);
    const Ints source_lengths{5000, 0, 3000}, dest_lengths{40, 1, 7};
    Ints idx;
    for (std::size_t k = 0; k < source_lengths.size(); ++k)
      for (std::int32_t j = 0; j < source_lengths[k]; ++j)
        idx.push_back(static_cast<std::int32_t>(rng() % dest_lengths[k]));
    const Floats v = random_floats(idx.size(), -1.0, 1.0, rng);
    const Floats defaults = random_floats(total_of(dest_lengths), 5.0, 6.0, rng);
    auto operands = [&](cvl::Backend& on) {
      cvl::PermuteOperands o;
      o.values = floats(on, v);
      o.indices = ints(on, idx);
      o.defaults = floats(on, defaults);
      o.source_segdes = segdes(on, source_lengths);
      o.dest_segdes = segdes(on, dest_lengths);
      return o;
    };
    cvl::PermuteOperands o = operands(b);
    cvl::Vector got;
    CHECK(launches_of([&] { got = b.permute(Op::DPermute, std::move(o)); }) == 1);
    CHECK(to_floats(b, got) == to_floats(ref, ref.permute(Op::DPermute, operands(ref))));
  }

  SECTION("reductions: one launch for one segment, two for many, empty segments at both ends") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::mt19937_64 rng(4);
    Floats v = random_floats(9000, -1e3, 1e3, rng);
    v[100] = nan;
    v[8999] = nan;
    for (const auto& [lengths, expected_launches] :
         std::vector<std::pair<Ints, std::uint64_t>>{{{9000}, 1},
                                                     {{0, 0, 4000, 0, 5000, 0}, 2},
                                                     {{1000}, 1},
                                                     {{0, 300, 0, 700, 0}, 1}}) {
      const std::size_t n = total_of(lengths);
      const Floats data(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
      for (Op op : {Op::PlusReduce, Op::MaxReduce, Op::MinReduce}) {
        INFO(vcode::spelling(op) << " over " << lengths.size() << " segments of " << n);
        cvl::Vector input = floats(b, data);
        const cvl::Segdes sd = segdes(b, lengths);
        cvl::Vector got;
        // FLOAT MAX/MIN do not commute with NaNs: a reduce-by-key even for one segment.
        const bool ordered = op != Op::PlusReduce && lengths.size() == 1 && n > 2048;
        CHECK(launches_of([&] { got = b.reduce(op, input, sd); }) ==
              expected_launches + (ordered ? 1 : 0));
        check_equal(download(b, got),
                    download(ref, ref.reduce(op, floats(ref, data), segdes(ref, lengths))));
      }
    }
  }

  SECTION("MAKE_SEGDES of a live descriptor's lengths is that descriptor, made again once it died") {
    const Ints lengths{4000, 0, 1, 3000};
    cvl::Vector kept_lengths;
    {
      const cvl::Segdes sd = segdes(b, lengths);
      kept_lengths = b.segment_lengths(sd);
      cvl::Segdes again;
      CHECK(launches_of([&] { again = b.make_segdes(kept_lengths); }) == 0);
      CHECK(again.storage == sd.storage);
      CHECK(to_ints(b, b.index(ints(b, {1, 2, 3, 4}), ints(b, {1, 1, 1, 1}), again)) ==
            to_ints(ref, ref.index(ints(ref, {1, 2, 3, 4}), ints(ref, {1, 1, 1, 1}),
                                   segdes(ref, lengths))));
    }
    cvl::Segdes remade;
    CHECK(launches_of([&] { remade = b.make_segdes(kept_lengths); }) == 1);
    CHECK(lengths_of(b, remade) == lengths);
  }

  SECTION("a descriptor's first walk writes its index as it searches: no launch builds it") {
    const Ints lengths{3, 0, 5000, 1, 0, 2000};
    const cvl::Segdes sd = segdes(b, lengths);
    cvl::Vector values = ints(b, {1, 2, 3, 4, 5, 6});
    const Ints expected = to_ints(ref, ref.distribute(ints(ref, {1, 2, 3, 4, 5, 6}),
                                                      segdes(ref, lengths)));
    for (int use = 0; use < 3; ++use) {
      cvl::Vector got;
      CHECK(launches_of([&] { got = b.distribute(values, sd); }) == 1);
      CHECK(to_ints(b, got) == expected);
    }
  }

  SECTION("a scan searches, a walk (DIST, INDEX, a gather's destination, a scatter's source) "
          "writes the index, and a scan after it reads it: one launch each") {
    const Ints lengths{2, 0, 3000, 7, 0, 4000, 1};
    const std::size_t n = total_of(lengths);
    std::mt19937_64 rng(5);
    Ints data(n), positions(n);
    for (auto& x : data) x = static_cast<std::int32_t>(rng() % 1000);
    for (std::size_t k = 0, j = 0; k < lengths.size(); ++k)  // a permutation within each segment
      for (std::int32_t i = 0; i < lengths[k]; ++i, ++j)
        positions[j] = (i * 7 + 3) % lengths[k];
    const Ints starts{1, 2, 3, 4, 5, 6, 7}, strides{2, 2, 2, 2, 2, 2, 2};
    auto scatter = [&](cvl::Backend& on, const cvl::Segdes& source) {
      cvl::PermuteOperands o;
      o.values = ints(on, data);
      o.indices = ints(on, positions);
      o.defaults = ints(on, Ints(n, -1));
      o.source_segdes = source;
      o.dest_segdes = source;
      return on.permute(Op::DPermute, std::move(o));
    };
    auto gather = [&](cvl::Backend& on, const cvl::Segdes& dest) {
      cvl::PermuteOperands o;
      o.values = ints(on, data);
      o.indices = ints(on, positions);
      o.source_segdes = dest;
      o.dest_segdes = dest;
      return on.permute(Op::BPermute, std::move(o));
    };
    const cvl::Segdes ref_sd = segdes(ref, lengths);
    const Ints scanned = to_ints(ref, ref.scan(Op::PlusScan, ints(ref, data), ref_sd));
    const Ints indexed = to_ints(ref, ref.index(ints(ref, starts), ints(ref, strides), ref_sd));
    const Ints scattered = to_ints(ref, scatter(ref, ref_sd));
    const Ints gathered = to_ints(ref, gather(ref, ref_sd));
    for (int walk = 0; walk < 4; ++walk) {
      INFO("walk " << walk);
      const cvl::Segdes sd = segdes(b, lengths);
      const cvl::Vector input = ints(b, data);
      cvl::Vector got;
      CHECK(launches_of([&] { got = b.scan(Op::PlusScan, input, sd); }) == 1);
      CHECK(to_ints(b, got) == scanned);
      if (walk == 0) {
        const cvl::Vector from = ints(b, starts), by = ints(b, strides);
        CHECK(launches_of([&] { got = b.index(from, by, sd); }) == 1);
        CHECK(to_ints(b, got) == indexed);
      } else if (walk == 1) {
        CHECK(launches_of([&] { got = b.distribute(ints(b, starts), sd); }) == 1);
      } else if (walk == 2) {
        CHECK(launches_of([&] { got = scatter(b, sd); }) == 1);
        CHECK(to_ints(b, got) == scattered);
      } else {
        CHECK(launches_of([&] { got = gather(b, sd); }) == 1);
        CHECK(to_ints(b, got) == gathered);
      }
      CHECK(launches_of([&] { got = b.scan(Op::PlusScan, input, sd); }) == 1);
      CHECK(to_ints(b, got) == scanned);
    }
  }

  SECTION("PACK is one launch: one segment or several, many tiles, a packed count packed again") {
    std::mt19937_64 rng(6);
    for (const Ints& lengths : std::vector<Ints>{{9000}, {0, 3, 0, 5000, 1, 2500, 0, 0}, {}}) {
      const std::size_t n = total_of(lengths);
      Ints data(n);
      for (auto& x : data) x = static_cast<std::int32_t>(rng() % 1000);
      const Bools keep = random_bools(n, 0.6, rng), again = random_bools(n, 0.5, rng);
      INFO(lengths.size() << " segments of " << n << " elements");
      auto packs = [&](cvl::Backend& on, std::uint64_t* first, std::uint64_t* second) {
        const cvl::Vector values = ints(on, data), flags = bools(on, keep);
        const cvl::Segdes sd = segdes(on, lengths);
        std::pair<cvl::Vector, cvl::Segdes> once, twice;
        *first = launches_of([&] { once = on.pack(values, flags, sd); });
        // The second PACK's flags, as long as the first's result (a pending count on the device).
        const std::size_t kept = once.first.length.get();
        const Bools second_flags(again.begin(), again.begin() + static_cast<std::ptrdiff_t>(kept));
        const cvl::Vector flags_again = bools(on, second_flags);
        std::pair<cvl::Vector, cvl::Segdes> packed_once = on.pack(values, flags, sd);
        *second = launches_of(
            [&] { twice = on.pack(packed_once.first, flags_again, packed_once.second); });
        return std::tuple{to_ints(on, once.first), lengths_of(on, once.second),
                          to_ints(on, twice.first), lengths_of(on, twice.second)};
      };
      std::uint64_t first = 0, second = 0, unused = 0;
      const auto got = packs(b, &first, &second);
      CHECK(first == 1);
      CHECK(second == 1);
      CHECK(got == packs(ref, &unused, &unused));
    }
  }

  SECTION("+_REDUCE of a descriptor's lengths over one segment is its total, once the host knows "
          "it: no launch") {
    const Ints lengths{4000, 0, 1, 3000};
    const cvl::Segdes sd = segdes(b, lengths);  // made on the device: its total is pending
    const cvl::Vector of_sd = b.segment_lengths(sd);
    const cvl::Segdes whole = segdes(b, {static_cast<std::int32_t>(lengths.size())});
    cvl::Vector sum;
    CHECK(launches_of([&] { sum = b.reduce(Op::PlusReduce, of_sd, whole); }) == 1);
    CHECK(to_ints(b, sum) == Ints{7001});  // the synchronization resolves the total too
    CHECK(launches_of([&] { sum = b.reduce(Op::PlusReduce, of_sd, whole); }) == 0);
    CHECK(to_ints(b, sum) == Ints{7001});
    // While the total is pending (a descriptor PACK made), the sum is the INT that PACK's launch
    // wrote beside its count (no launch), and MAKE_SEGDES of it, or of LENGTH of the packed
    // vector, is one segment of that count, made with no launch.
    Bools keep(7001);
    for (std::size_t j = 0; j < keep.size(); ++j) keep[j] = j % 3 != 0;
    auto [kept, packed] = b.pack(ints(b, Ints(7001, 5)), bools(b, keep), sd);
    const cvl::Vector of_packed = b.segment_lengths(packed);
    CHECK(launches_of([&] { sum = b.reduce(Op::PlusReduce, of_packed, whole); }) == 0);
    cvl::Segdes one, by_length;
    CHECK(launches_of([&] { one = b.make_segdes(sum); }) == 0);
    const cvl::Vector length = b.length_value(kept.length);
    CHECK(launches_of([&] { by_length = b.make_segdes(length); }) == 0);
    const cvl::Vector spread = b.distribute(ints(b, {4}), one),
                      spread_by_length = b.distribute(ints(b, {4}), by_length);
    b.synchronize();  // the lengths of both are the packed count
    const Ints fours(4667, 4);
    CHECK(to_ints(b, spread) == fours);
    CHECK(to_ints(b, spread_by_length) == fours);
    CHECK(to_ints(b, sum) == Ints{4667});
    CHECK(lengths_of(b, one) == Ints{4667});
    // Another reduction, or a vector that only holds the same numbers, is reduced on the device.
    CHECK(launches_of([&] { sum = b.reduce(Op::MaxReduce, of_sd, whole); }) == 1);
    CHECK(to_ints(b, sum) == Ints{4000});
    const cvl::Vector same_numbers = ints(b, lengths);
    CHECK(launches_of([&] { sum = b.reduce(Op::PlusReduce, same_numbers, whole); }) == 1);
    CHECK(to_ints(b, sum) == Ints{7001});
  }

}

}  // namespace cvl_test
