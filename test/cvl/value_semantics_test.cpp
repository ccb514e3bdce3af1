// Value semantics: a backend may reuse an operand's memory for its result only when no other
// handle refers to it. Each op that may work in place is run twice: on a shared operand (the
// other handle must not change) and on a moved-in last handle (the result must still be right).
#include "support.hpp"

namespace cvl_test {
namespace {

const Ints kValues{5, -3, 8, 1, 2, 7};

}  // namespace

TEST_CASE("elementwise ops never modify a shared operand", "[value-semantics]") {
  CVL_BACKEND(b);
  cvl::Vector a = ints(b, kValues), keep = a;
  CHECK(to_ints(b, ew(b, Op::Not, Type::Int, a)) == Ints{-6, 2, -9, -2, -3, -8});
  CHECK(to_ints(b, ew(b, Op::Add, Type::Int, a, a)) == Ints{10, -6, 16, 2, 4, 14});
  CHECK(to_ints(b, keep) == kValues);

  cvl::Vector flags = bools(b, {1, 0, 1, 0, 1, 0}), flags_keep = flags;
  cvl::Vector other = bools(b, {0, 0, 0, 1, 1, 1});
  CHECK(to_bools(b, ew(b, Op::Select, Type::Bool, flags, flags, other)) == Bools{1, 0, 1, 1, 1, 1});
  CHECK(to_bools(b, flags_keep) == Bools{1, 0, 1, 0, 1, 0});

  // last handles moved in: in-place results are still correct
  CHECK(to_ints(b, ew(b, Op::Mul, Type::Int, ints(b, kValues), ints(b, kValues))) ==
        Ints{25, 9, 64, 1, 4, 49});
  cvl::Vector f = floats(b, {1.0, 4.0}), g = floats(b, {2.0, 8.0});
  CHECK(to_floats(b, ew(b, Op::Div, Type::Float, std::move(f), std::move(g))) == Floats{0.5, 0.5});
  CHECK(to_ints(b, ew(b, Op::Select, Type::Int, bools(b, {1, 0}), ints(b, {1, 2}),
                      ints(b, {3, 4}))) == Ints{1, 4});
  CHECK(to_ints(b, ew(b, Op::Trunc, Type::Float, floats(b, {1.5, -2.5}))) == Ints{1, -2});
}

TEST_CASE("scans, ranks and RAND never modify a shared operand", "[value-semantics]") {
  CVL_BACKEND(b);
  cvl::Vector a = ints(b, kValues), keep = a;
  cvl::Segdes sd = segdes(b, {6});
  CHECK(to_ints(b, b.scan(Op::PlusScan, a, sd)) == Ints{0, 5, 2, 10, 11, 13});
  CHECK(to_ints(b, b.rank(Op::RankUp, a, sd)) == Ints{3, 0, 5, 1, 2, 4});
  cvl::RandomStream stream;
  CHECK(b.random(a, stream).length == 6);
  CHECK(to_ints(b, keep) == kValues);

  CHECK(to_ints(b, b.scan(Op::MaxScan, ints(b, kValues), sd)) == Ints{-2147483648, 5, 5, 8, 8, 8});
  CHECK(to_ints(b, b.rank(Op::RankDown, ints(b, kValues), sd)) == Ints{2, 5, 0, 4, 3, 1});
}

TEST_CASE("permutes never modify a shared index or default vector", "[value-semantics]") {
  CVL_BACKEND(b);
  cvl::Vector idx = ints(b, {2, 0, 1}), idx_keep = idx;
  cvl::Vector dflt = ints(b, {9, 9, 9}), dflt_keep = dflt;
  cvl::Segdes sd = segdes(b, {3});
  auto operands = [&](Op op, cvl::Vector i, cvl::Vector d) {
    cvl::PermuteOperands o;
    o.values = ints(b, {10, 20, 30});
    o.indices = std::move(i);
    o.defaults = std::move(d);
    o.source_segdes = sd;
    o.dest_segdes = sd;
    if (op == Op::DFPermute || op == Op::BFPermute) o.flags = bools(b, {1, 1, 0});
    return o;
  };
  CHECK(to_ints(b, b.permute(Op::BPermute, operands(Op::BPermute, idx, {}))) == Ints{30, 10, 20});
  CHECK(to_ints(b, b.permute(Op::BFPermute, operands(Op::BFPermute, idx, {}))) == Ints{30, 10, 0});
  CHECK(to_ints(b, b.permute(Op::DPermute, operands(Op::DPermute, idx, dflt))) == Ints{20, 30, 10});
  CHECK(to_ints(b, b.permute(Op::DFPermute, operands(Op::DFPermute, idx, dflt))) ==
        Ints{20, 9, 10});
  CHECK(to_ints(b, idx_keep) == Ints{2, 0, 1});
  CHECK(to_ints(b, dflt_keep) == Ints{9, 9, 9});

  CHECK(to_ints(b, b.permute(Op::BPermute, operands(Op::BPermute, ints(b, {1, 1, 0}), {}))) ==
        Ints{20, 20, 10});
  CHECK(to_ints(b, b.permute(Op::DPermute, operands(Op::DPermute, ints(b, {2, 0, 1}),
                                                    ints(b, {0, 0, 0})))) == Ints{20, 30, 10});
}

TEST_CASE("EXTRACT and REPLACE never modify a shared operand", "[value-semantics]") {
  CVL_BACKEND(b);
  cvl::Vector v = ints(b, {10, 20, 30}), v_keep = v;
  cvl::Vector idx = ints(b, {1, 0}), idx_keep = idx;
  cvl::Segdes sd = segdes(b, {2, 1});
  CHECK(to_ints(b, b.replace(v, idx, ints(b, {-1, -2}), sd)) == Ints{10, -1, -2});
  CHECK(to_ints(b, b.extract(v, idx, sd)) == Ints{20, 30});
  CHECK(to_ints(b, v_keep) == Ints{10, 20, 30});
  CHECK(to_ints(b, idx_keep) == Ints{1, 0});
  CHECK(to_ints(b, b.replace(ints(b, {10, 20, 30}), ints(b, {0, 0}), ints(b, {-1, -2}), sd)) ==
        Ints{-1, 20, -2});
}

TEST_CASE("a segment descriptor is independent of the lengths vectors around it",
          "[value-semantics][segdes]") {
  CVL_BACKEND(b);
  cvl::Vector lengths = ints(b, {2, 0, 3}), keep = lengths;
  cvl::Segdes sd = b.make_segdes(std::move(lengths));
  // the caller's other handle may be consumed by an in-place op...
  CHECK(to_ints(b, ew(b, Op::Not, Type::Int, std::move(keep))) == Ints{-3, -1, -4});
  CHECK(lengths_of(b, sd) == Ints{2, 0, 3});
  // ...and so may the vector LENGTHS returns
  CHECK(to_ints(b, ew(b, Op::Not, Type::Int, b.segment_lengths(sd))) == Ints{-3, -1, -4});
  CHECK(lengths_of(b, sd) == Ints{2, 0, 3});
  CHECK(to_ints(b, b.scan(Op::PlusScan, ints(b, {1, 2, 3, 4, 5}), sd)) == Ints{0, 1, 0, 3, 7});
}

}  // namespace cvl_test
