// cvl-cuda's device traffic count (BackendStats::device_bytes_moved) on its host emulation, on
// cases worked out by hand from what each kernel reads and writes: a count that drifts from its
// kernels' formulas, or a launch that counts nothing, changes these numbers. Every operation runs
// on the device (host threshold 0), and each descriptor has been used once before it is measured
// (its offsets already made), unless the case says otherwise.
#include "cvl_cuda/cvl_cuda.hpp"
#include "fused_support.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

constexpr std::uint64_t kN = 100000;

std::unique_ptr<cvl::Backend> emulated() {
  cvl::BackendOptions options{.threads = 1};
  options.host_threshold = 0;
  return cvl::make_cuda_emulated_backend(options);
}

// Bytes moved by `operation` alone.
template <class Operation>
std::uint64_t bytes_moved(cvl::Backend& b, Operation&& operation) {
  b.synchronize();
  const std::uint64_t before = b.stats().device_bytes_moved;
  operation();
  b.synchronize();
  return b.stats().device_bytes_moved - before;
}

Ints iota(std::size_t n) {
  Ints v(n);
  for (std::size_t j = 0; j < n; ++j) v[j] = static_cast<std::int32_t>(j);
  return v;
}

}  // namespace

TEST_CASE("cuda-emulated: bytes moved by the primitives, counted by hand", "[cuda][traffic]") {
  auto owner = emulated();
  cvl::Backend& b = *owner;
  const cvl::Segdes one = segdes(b, {static_cast<std::int32_t>(kN)});
  b.synchronize();  // the descriptor's total, known from here on

  SECTION("+ INT: each operand and the result once, 12 bytes an element") {
    const cvl::Vector x = ints(b, Ints(kN, 1));
    CHECK(bytes_moved(b, [&] { ew(b, Op::Add, Type::Int, x, x); }) == 12 * kN);
  }

  SECTION("+_REDUCE INT of one segment: the elements once and the result") {
    const cvl::Vector x = ints(b, Ints(kN, 1));
    cvl::Vector sum;
    CHECK(bytes_moved(b, [&] { sum = b.reduce(Op::PlusReduce, x, one); }) == 4 * kN + 4);
    CHECK(to_ints(b, sum) == Ints{static_cast<std::int32_t>(kN)});
  }

  SECTION("+_REDUCE INT of four segments: a reduce-by-key, then the results stored") {
    const cvl::Segdes four = segdes(b, {25000, 25000, 25000, 25000});
    b.synchronize();
    const cvl::Vector x = ints(b, Ints(kN, 1));
    // The reduce-by-key: the elements (4 bytes), each one's segment found by searching the five
    // offsets (40 bytes, once), a key and an aggregate per run (5 runs at most: 40), the run
    // count (8). Storing: per run its key, aggregate and result (12 bytes), the offsets (40) and
    // the run count (8) once.
    CHECK(bytes_moved(b, [&] { b.reduce(Op::PlusReduce, x, four); }) ==
          (4 * kN + 40 + 40 + 8) + (5 * 12 + 40 + 8));
  }

  SECTION("PERMUTE INT: the claims cleared, claimed and read, then the values scattered") {
    const cvl::Vector x = ints(b, iota(kN));
    cvl::PermuteOperands o;
    o.values = x;
    o.indices = x;
    o.source_segdes = one;
    // Claims cleared (4 bytes an element); each pass reads the index (4) and the two offsets of
    // the one segment (16, once); the claim is read and written, then read back (12); the value
    // is read and the result written (8).
    cvl::Vector out;
    CHECK(bytes_moved(b, [&] { out = b.permute(Op::Permute, std::move(o)); }) ==
          4 * kN + 2 * (4 * kN + 16) + 12 * kN + 8 * kN);
    CHECK(to_ints(b, out) == iota(kN));
  }

  SECTION("DIST INT: each element written, each segment's value read once") {
    const cvl::Vector value = ints(b, {7});
    CHECK(bytes_moved(b, [&] { b.distribute(value, one); }) == 4 * kN + 4);
    // Four segments, the first use of the descriptor's elements: each element's segment found by
    // searching the offsets (40 bytes, once) and written into the per-element index (4 bytes an
    // element) as it goes.
    const cvl::Segdes four = segdes(b, {25000, 25000, 25000, 25000});
    b.synchronize();
    const cvl::Vector values = ints(b, {1, 2, 3, 4});
    CHECK(bytes_moved(b, [&] { b.distribute(values, four); }) == 8 * kN + 40 + 16);
    // The next walk of it reads that index (4 bytes an element) instead of searching again.
    CHECK(bytes_moved(b, [&] { b.distribute(values, four); }) == 8 * kN + 16);
  }

  SECTION("PACK INT: the flags counted, then scanned again as the kept elements move") {
    Bools keep(kN, 0);
    for (std::size_t j = 0; j < 100; ++j) keep[j * 1000] = 1;
    const cvl::Vector x = ints(b, Ints(kN, 1));
    const cvl::Vector flags = bools(b, keep);
    // Each flag read twice; per tile of 1024 elements its count written and read, its prefix
    // written and read (16); the total written, also as an INT (8 + 4); for the 100 kept elements
    // their value and result (4 + 4); per segment and one past the last (2) the offset read, the
    // new offset and length written, the total read (28). One segment: no count per element is
    // stored.
    const std::uint64_t tiles = (kN + 1023) / 1024;
    CHECK(bytes_moved(b, [&] { b.pack(x, flags, one); }) ==
          2 * kN + (tiles * 16 + 8 + 4) + 100 * 8 + 2 * 28);
  }

  SECTION("FUSED: each operand read at the element once and the result written") {
    const auto sum_of_products =
        b.prepare(superop("SUPEROP 0 (FLOAT FLOAT) (+ FLOAT (* FLOAT $0 $1) (CONST FLOAT 1.0))"));
    std::vector<cvl::FusedOperand> operands(2);
    operands[0].vector = floats(b, Floats(kN, 2.0));
    operands[1].vector = floats(b, Floats(kN, 3.0));
    CHECK(bytes_moved(b, [&] { b.fused(*sum_of_products, operands, kN); }) == 24 * kN);

    // Over four segments whose per-element index is built (the first use searches, the second
    // builds it): a DIST of a constant finds no segment, a DIST of an operand reads the index
    // (4 bytes an element) and each segment's value once.
    const cvl::Segdes four = segdes(b, {25000, 25000, 25000, 25000});
    b.synchronize();
    const auto constant = b.prepare(superop("SUPEROP 0 (SEGDES) (DIST INT (CONST INT 7) $0)"));
    const auto spread = b.prepare(superop("SUPEROP 0 (INT SEGDES) (DIST INT $0 $1)"));
    std::vector<cvl::FusedOperand> values_and_segments(2);
    values_and_segments[0].vector = ints(b, {1, 2, 3, 4});
    values_and_segments[1].segdes = four;
    for (int use = 0; use < 2; ++use) b.fused(*spread, values_and_segments, four.total);
    std::vector<cvl::FusedOperand> segments(1);
    segments[0].segdes = four;
    cvl::Vector sevens;
    CHECK(bytes_moved(b, [&] { sevens = b.fused(*constant, segments, four.total); }) == 4 * kN);
    CHECK(to_ints(b, sevens) == Ints(kN, 7));
    CHECK(bytes_moved(b, [&] { b.fused(*spread, values_and_segments, four.total); }) ==
          8 * kN + 16);
  }

  SECTION("a vector whose length is pending: the emulation counts the elements there are") {
    Bools keep(kN, 0);
    for (std::size_t j = 0; j < 100; ++j) keep[j * 1000] = 1;
    const cvl::Vector packed = b.pack(ints(b, Ints(kN, 1)), bools(b, keep), one).first;
    REQUIRE_FALSE(packed.length.known());
    // No synchronization first, which would make the length known: the emulation without
    // --emulate-async has run all queued work already.
    const std::uint64_t before = b.stats().device_bytes_moved;
    const cvl::Vector twice = ew(b, Op::Add, Type::Int, packed, packed);
    REQUIRE_FALSE(twice.length.known());
    CHECK(b.stats().device_bytes_moved - before == 12 * 100);
  }
}

}  // namespace cvl_test
