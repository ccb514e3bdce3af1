// Data-dependent errors: each throws cvl::Error with a message naming what went wrong, where the
// classic interpreter died of SIGFPE or read out of bounds. Shape errors are the interpreter's
// (test/errors); a backend only asserts the shape rules, in debug builds.
#include <limits>

#include "cvl/shape_rules.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();

cvl::Vector permute(cvl::Backend& b, Op op, const Ints& idx, const Ints& source_lengths,
                    const Ints& dest_lengths, const Bools& flags = {}) {
  cvl::PermuteOperands o;
  o.values = ints(b, Ints(total_of(source_lengths), 1));
  o.indices = ints(b, idx);
  o.source_segdes = segdes(b, source_lengths);
  if (op != Op::Permute) o.dest_segdes = segdes(b, dest_lengths);
  if (op == Op::FPermute || op == Op::BFPermute || op == Op::DFPermute) o.flags = bools(b, flags);
  if (op == Op::DPermute || op == Op::DFPermute)
    o.defaults = ints(b, Ints(total_of(dest_lengths), 0));
  return b.permute(op, std::move(o));
}

}  // namespace

TEST_CASE("INT division and remainder by zero, and INT_MIN / -1, are errors", "[errors]") {
  CVL_BACKEND(b);
  auto run = [&](Op op, const Ints& x, const Ints& y) {
    return ew(b, op, Type::Int, ints(b, x), ints(b, y));
  };
  CHECK_THROWS_AS(run(Op::Div, {1, 2}, {1, 0}), cvl::Error);
  CHECK_THROWS_WITH(run(Op::Div, {1, 2}, {1, 0}), "division by zero");
  CHECK_THROWS_WITH(run(Op::Mod, {1, 2}, {0, 1}), "division by zero");
  CHECK_THROWS_WITH(run(Op::Div, {kMin}, {-1}), "integer overflow in division (-2147483648 / -1)");
  CHECK_THROWS_WITH(run(Op::Mod, {5, kMin}, {3, -1}),
                    "integer overflow in division (-2147483648 / -1)");
  // the first offending element decides the message
  CHECK_THROWS_WITH(run(Op::Div, {kMin, 1}, {-1, 0}),
                    "integer overflow in division (-2147483648 / -1)");
  // large operands (the threaded path)
  Ints x(200000, 7), y(200000, 3);
  y[123456] = 0;
  CHECK_THROWS_WITH(run(Op::Div, x, y), "division by zero");
  CHECK_THROWS_WITH(run(Op::Mod, x, y), "division by zero");
  // FLOAT division by zero is IEEE, not an error
  CHECK_NOTHROW(ew(b, Op::Div, Type::Float, floats(b, {1.0}), floats(b, {0.0})));
}

TEST_CASE("RAND with a zero bound is an error", "[errors]") {
  CVL_BACKEND(b);
  cvl::RandomStream stream;
  CHECK_THROWS_AS(b.random(ints(b, {5, 6, 0, 0}), stream), cvl::Error);
  CHECK_THROWS_WITH(b.random(ints(b, {5, 6, 0, 0}), stream), "RAND: bound 0 at position 2");
}

TEST_CASE("every permute checks every index it uses", "[errors][permute]") {
  CVL_BACKEND(b);
  CHECK_THROWS_AS(permute(b, Op::BPermute, {0, 1, 2, 7}, {5}, {4}), cvl::Error);
  CHECK_THROWS_WITH(permute(b, Op::BPermute, {0, 1, 2, 7}, {5}, {4}),
                    "BPERMUTE: index 7 at position 3 is outside its segment of length 5");
  // segmented: indices are relative to their own segment
  CHECK_THROWS_WITH(permute(b, Op::BPermute, {0, 1, 2}, {2, 2}, {1, 2}),
                    "BPERMUTE: index 2 at position 2 is outside its segment of length 2");
  CHECK_THROWS_WITH(permute(b, Op::Permute, {1, 0, 0, 2}, {2, 2}, {}),
                    "PERMUTE: index 2 at position 3 is outside its segment of length 2");
  CHECK_THROWS_WITH(permute(b, Op::Permute, {1, -1}, {2}, {}),
                    "PERMUTE: index -1 at position 1 is outside its segment of length 2");
  CHECK_THROWS_WITH(permute(b, Op::DPermute, {0, 3}, {1, 1}, {2, 3}),
                    "DPERMUTE: index 3 at position 1 is outside its segment of length 3");
  // flag permutes check flagged elements only
  CHECK_NOTHROW(permute(b, Op::FPermute, {0, 9}, {2}, {2}, {1, 0}));
  CHECK_THROWS_WITH(permute(b, Op::FPermute, {0, 9}, {2}, {2}, {1, 1}),
                    "FPERMUTE: index 9 at position 1 is outside its segment of length 2");
  CHECK_NOTHROW(permute(b, Op::DFPermute, {-4, 1}, {2}, {2}, {0, 1}));
  CHECK_THROWS_WITH(permute(b, Op::DFPermute, {-4, 1}, {2}, {2}, {1, 1}),
                    "DFPERMUTE: index -4 at position 0 is outside its segment of length 2");
  CHECK_NOTHROW(permute(b, Op::BFPermute, {0, 99}, {1}, {2}, {1, 0}));
  CHECK_THROWS_WITH(permute(b, Op::BFPermute, {0, 99}, {1}, {2}, {1, 1}),
                    "BFPERMUTE: index 99 at position 1 is outside its segment of length 1");
  // an empty source segment has no valid index
  CHECK_THROWS_WITH(permute(b, Op::BPermute, {0}, {0}, {1}),
                    "BPERMUTE: index 0 at position 0 is outside its segment of length 0");
}

TEST_CASE("index errors in large vectors report the first bad position", "[errors][permute]") {
  CVL_BACKEND(b);
  const std::size_t n = 300000;
  Ints idx(n);
  for (std::size_t j = 0; j < n; ++j) idx[j] = static_cast<std::int32_t>(n - 1 - j);
  idx[200000] = -3;
  idx[250000] = 400000;
  CHECK_THROWS_WITH(
      permute(b, Op::BPermute, idx, {static_cast<std::int32_t>(n)}, {static_cast<std::int32_t>(n)}),
      "BPERMUTE: index -3 at position 200000 is outside its segment of length 300000");
  CHECK_THROWS_WITH(permute(b, Op::Permute, idx, {static_cast<std::int32_t>(n)}, {}),
                    "PERMUTE: index -3 at position 200000 is outside its segment of length 300000");
}

// Threads own ranges of the destination: a source segment whose destination segment is empty
// still has each of its indices checked, and the lowest bad position wins across ranges.
TEST_CASE("large scatters check indices aimed at empty destination segments",
          "[errors][permute]") {
  CVL_BACKEND(b);
  const std::int32_t n = 150000;
  Ints idx;
  for (std::int32_t j = 0; j < n; ++j) idx.push_back(j);
  idx.push_back(0);  // position n: into the empty second destination segment
  for (std::int32_t j = 0; j < n; ++j) idx.push_back(n - 1 - j);
  CHECK_THROWS_WITH(permute(b, Op::DPermute, idx, {n, 1, n}, {n, 0, n}),
                    "DPERMUTE: index 0 at position 150000 is outside its segment of length 0");
  idx[n + 1 + 100] = n;  // also bad, later: the first one still decides
  idx[7] = -1;           // and an earlier one, in the first range
  CHECK_THROWS_WITH(permute(b, Op::DPermute, idx, {n, 1, n}, {n, 0, n}),
                    "DPERMUTE: index -1 at position 7 is outside its segment of length 150000");
}

TEST_CASE("EXTRACT and REPLACE check their indices", "[errors][vector]") {
  CVL_BACKEND(b);
  CHECK_THROWS_AS(b.extract(ints(b, {1, 2, 3}), ints(b, {0, 1}), segdes(b, {2, 1})), cvl::Error);
  CHECK_THROWS_WITH(b.extract(ints(b, {1, 2, 3}), ints(b, {0, 1}), segdes(b, {2, 1})),
                    "EXTRACT: index 1 at position 1 is outside its segment of length 1");
  CHECK_THROWS_WITH(b.extract(ints(b, {1, 2}), ints(b, {0, 0}), segdes(b, {2, 0})),
                    "EXTRACT: index 0 at position 1 is outside its segment of length 0");
  CHECK_THROWS_WITH(b.extract(floats(b, {1.0}), ints(b, {-1}), segdes(b, {1})),
                    "EXTRACT: index -1 at position 0 is outside its segment of length 1");
  CHECK_THROWS_WITH(
      b.replace(ints(b, {1, 2, 3}), ints(b, {2, 0}), ints(b, {7, 8}), segdes(b, {2, 1})),
      "REPLACE: index 2 at position 0 is outside its segment of length 2");
  CHECK_THROWS_WITH(b.replace(bools(b, {1}), ints(b, {0, 0}), bools(b, {0, 0}), segdes(b, {1, 0})),
                    "REPLACE: index 0 at position 1 is outside its segment of length 0");
}

TEST_CASE("MAKE_SEGDES rejects negative lengths", "[errors][segdes]") {
  CVL_BACKEND(b);
  CHECK_THROWS_AS(b.make_segdes(ints(b, {1, 2, -3})), cvl::Error);
  CHECK_THROWS_WITH(b.make_segdes(ints(b, {1, 2, -3})),
                    "MAKE_SEGDES: negative segment length -3 at position 2");
  Ints many(400000, 1);
  many[390000] = -1;
  many[300001] = -7;
  CHECK_THROWS_WITH(b.make_segdes(ints(b, many)),
                    "MAKE_SEGDES: negative segment length -7 at position 300001");
}

TEST_CASE("a CheckingBackend stops a call that breaks the shape rules", "[errors][contract]") {
  CVL_BACKEND(b);  // behind a CheckingBackend (support.hpp)
  CHECK_THROWS_AS(ew(b, Op::Add, Type::Int, ints(b, {1, 2}), ints(b, {1})),
                  cvl::contract::Violation);
  CHECK_THROWS_AS(b.distribute(ints(b, {1, 2, 3}), segdes(b, {1, 1})), cvl::contract::Violation);
  CHECK_THROWS_AS(b.scan(Op::PlusScan, ints(b, {1, 2}), segdes(b, {3})), cvl::contract::Violation);
}

}  // namespace cvl_test
