// Segmented exclusive scans and reductions (spec/CVL.md §3.2-3.3, VCODE.md §6.5-6.6).
#include <limits>

#include "support.hpp"

namespace cvl_test {
namespace {

constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
constexpr double kHuge = 9.999999616903162e+35;  // (double)(float)1e36
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

constexpr Op kScans[] = {Op::PlusScan, Op::MulScan, Op::MaxScan, Op::MinScan,
                         Op::AndScan,  Op::OrScan,  Op::XorScan};
constexpr Op kReductions[] = {Op::PlusReduce, Op::MulReduce, Op::MaxReduce, Op::MinReduce,
                              Op::AndReduce,  Op::OrReduce,  Op::XorReduce};

bool logical(Op op) {
  return op == Op::AndScan || op == Op::OrScan || op == Op::XorScan || op == Op::AndReduce ||
         op == Op::OrReduce || op == Op::XorReduce;
}
std::vector<Type> types_of(Op op) {
  return logical(op) ? std::vector<Type>{Type::Int, Type::Bool}
                     : std::vector<Type>{Type::Int, Type::Float};
}
bool float_sum_or_product(Op op, Type type) {
  return type == Type::Float &&
         (op == Op::PlusScan || op == Op::MulScan || op == Op::PlusReduce || op == Op::MulReduce);
}

// Data suited to the operator: products of values near 1 stay finite; FLOAT MAX/MIN data has
// ties between -0.0 and 0.0 and the odd NaN, which make the order of evaluation visible.
HostVector data_for(Op op, Type type, std::size_t n, std::mt19937_64& rng) {
  HostVector h = random_vector(type, n, rng);
  if (type != Type::Float) return h;
  if (op == Op::MulScan || op == Op::MulReduce) h.f = random_floats(n, 0.9, 1.1, rng);
  if (op == Op::PlusScan || op == Op::PlusReduce) h.f = random_floats(n, 0.0, 1000.0, rng);
  if (op == Op::MaxScan || op == Op::MaxReduce || op == Op::MinScan || op == Op::MinReduce) {
    std::uniform_int_distribution<int> pick(0, 99);
    for (auto& x : h.f) {
      int p = pick(rng);
      if (p == 0)
        x = kNan;
      else if (p < 30)
        x = p % 2 ? -0.0 : 0.0;
    }
  }
  return h;
}

HostVector float_vector(const Floats& f) {
  HostVector h;
  h.type = Type::Float;
  h.f = f;
  return h;
}

}  // namespace

TEST_CASE("scans and reductions: the worked examples", "[scan][reduce]") {
  CVL_BACKEND(b);
  // VCODE.md §6.5 and §6.6: v = (3 1 4 1 5), sd = [2 0 3]
  const Ints v{3, 1, 4, 1, 5}, lengths{2, 0, 3};
  CHECK(to_ints(b, b.scan(Op::PlusScan, ints(b, v), segdes(b, lengths))) == Ints{0, 3, 0, 4, 5});
  check_equal(download(b, b.scan(Op::MinScan, floats(b, {3, 1, 4, 1, 5}), segdes(b, lengths))),
              float_vector({kHuge, 3.0, kHuge, 4.0, 1.0}));
  CHECK(to_ints(b, b.reduce(Op::MaxReduce, ints(b, v), segdes(b, lengths))) == Ints{3, kMin, 5});
  // CVL.md §2.2: MAX_REDUCE FLOAT of (inf nan 3.0) is 3.0
  check_equal(download(b, b.reduce(Op::MaxReduce, floats(b, {kInf, kNan, 3.0}), segdes(b, {3}))),
              float_vector({3.0}));
}

TEST_CASE("empty segments give the identities", "[scan][reduce][empty]") {
  CVL_BACKEND(b);
  const Ints lengths{0, 0};
  auto int_reduce = [&](Op op) {
    return to_ints(b, b.reduce(op, ints(b, {}), segdes(b, lengths)));
  };
  CHECK(int_reduce(Op::PlusReduce) == Ints{0, 0});
  CHECK(int_reduce(Op::MulReduce) == Ints{1, 1});
  CHECK(int_reduce(Op::MaxReduce) == Ints{kMin, kMin});
  CHECK(int_reduce(Op::MinReduce) == Ints{kMax, kMax});
  CHECK(int_reduce(Op::AndReduce) == Ints{-1, -1});
  CHECK(int_reduce(Op::OrReduce) == Ints{0, 0});
  CHECK(int_reduce(Op::XorReduce) == Ints{0, 0});
  auto float_reduce = [&](Op op) {
    return download(b, b.reduce(op, floats(b, {}), segdes(b, lengths)));
  };
  check_equal(float_reduce(Op::PlusReduce), float_vector({0.0, 0.0}));
  check_equal(float_reduce(Op::MulReduce), float_vector({1.0, 1.0}));
  check_equal(float_reduce(Op::MaxReduce), float_vector({-kHuge, -kHuge}));
  check_equal(float_reduce(Op::MinReduce), float_vector({kHuge, kHuge}));
  auto bool_reduce = [&](Op op) {
    return to_bools(b, b.reduce(op, bools(b, {}), segdes(b, lengths)));
  };
  CHECK(bool_reduce(Op::AndReduce) == Bools{1, 1});
  CHECK(bool_reduce(Op::OrReduce) == Bools{0, 0});
  CHECK(bool_reduce(Op::XorReduce) == Bools{0, 0});

  // the identity also starts every segment of a scan
  CHECK(to_ints(b, b.scan(Op::AndScan, ints(b, {6, 3, 5}), segdes(b, {1, 0, 2}))) ==
        Ints{-1, -1, 3});
  CHECK(to_ints(b, b.scan(Op::MaxScan, ints(b, {6, 3, 5}), segdes(b, {1, 0, 2}))) ==
        Ints{kMin, kMin, 3});
  CHECK(to_bools(b, b.scan(Op::AndScan, bools(b, {1, 0, 1}), segdes(b, {3}))) == Bools{1, 1, 0});

  // no segments at all: empty results
  for (Op op : kReductions)
    for (Type type : types_of(op))
      CHECK(b.reduce(op, b.upload(type, nullptr, 0), segdes(b, {})).length == 0);
  for (Op op : kScans)
    for (Type type : types_of(op))
      CHECK(b.scan(op, b.upload(type, nullptr, 0), segdes(b, {})).length == 0);
}

TEST_CASE("FLOAT MAX/MIN use the ±1e36 identities and s > x ? s : x", "[scan][reduce]") {
  CVL_BACKEND(b);
  // all values beyond the "infinities": the identity wins
  check_equal(download(b, b.reduce(Op::MaxReduce, floats(b, {-1e37, -kInf}), segdes(b, {2}))),
              float_vector({-kHuge}));
  check_equal(download(b, b.reduce(Op::MinReduce, floats(b, {1e37, kInf}), segdes(b, {2}))),
              float_vector({kHuge}));
  // a NaN replaces the running value; the next element replaces the NaN
  check_equal(download(b, b.scan(Op::MaxScan, floats(b, {1.0, kNan, 0.5, 2.0}), segdes(b, {4}))),
              float_vector({-kHuge, 1.0, kNan, 0.5}));
  check_equal(download(b, b.scan(Op::MinScan, floats(b, {1.0, kNan, 0.5, 2.0}), segdes(b, {4}))),
              float_vector({kHuge, 1.0, kNan, 0.5}));
  check_equal(download(b, b.reduce(Op::MaxReduce, floats(b, {1.0, kNan}), segdes(b, {2}))),
              float_vector({kNan}));
  // ties go to the later element: -0.0 after 0.0 wins
  check_equal(download(b, b.reduce(Op::MaxReduce, floats(b, {0.0, -0.0}), segdes(b, {2}))),
              float_vector({-0.0}));
  check_equal(download(b, b.reduce(Op::MinReduce, floats(b, {-0.0, 0.0}), segdes(b, {2}))),
              float_vector({0.0}));
}

TEST_CASE("INT scans and reductions wrap, BOOL ones are logical", "[scan][reduce]") {
  CVL_BACKEND(b);
  CHECK(to_ints(b, b.scan(Op::PlusScan, ints(b, {kMax, 1, 1}), segdes(b, {3}))) ==
        Ints{0, kMax, kMin});
  CHECK(to_ints(b, b.reduce(Op::MulReduce, ints(b, {65536, 65536, 7}), segdes(b, {2, 1}))) ==
        Ints{0, 7});
  CHECK(to_ints(b, b.scan(Op::XorScan, ints(b, {5, 3, 6, 1}), segdes(b, {4}))) == Ints{0, 5, 6, 0});
  CHECK(to_ints(b, b.reduce(Op::OrReduce, ints(b, {1, 2, 4, 8}), segdes(b, {3, 1}))) == Ints{7, 8});
  CHECK(to_bools(b, b.scan(Op::XorScan, bools(b, {1, 1, 0, 1, 1}), segdes(b, {5}))) ==
        Bools{0, 1, 0, 0, 1});
  CHECK(to_bools(b, b.scan(Op::OrScan, bools(b, {0, 1, 0, 0, 0}), segdes(b, {3, 2}))) ==
        Bools{0, 0, 1, 0, 0});
  CHECK(to_bools(b, b.reduce(Op::AndReduce, bools(b, {1, 1, 0, 1}), segdes(b, {2, 2}))) ==
        Bools{1, 0});
  CHECK(to_bools(b, b.reduce(Op::XorReduce, bools(b, {1, 1, 1, 0, 1}), segdes(b, {3, 2}))) ==
        Bools{1, 1});
}

TEST_CASE("the sequential backend combines FLOAT strictly left to right", "[scan][reduce]") {
  // (((1e16 + 1) + 1) ... ) loses every 1; any regrouping keeps some of them.
  cvl::Backend& b = reference_backend();
  Floats v(100001, 1.0);
  v[0] = 1e16;
  check_equal(download(b, b.reduce(Op::PlusReduce, floats(b, v), segdes(b, {100001}))),
              float_vector({1e16}));
  HostVector scanned = download(b, b.scan(Op::PlusScan, floats(b, v), segdes(b, {100001})));
  CHECK(scanned.f.back() == 1e16);
}

TEST_CASE("scans and reductions match the model on every layout and type",
          "[scan][reduce][layouts]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(2024);
  for (Layout layout : kAllLayouts) {
    const Ints lengths = make_lengths(layout, 100000, rng);
    const std::size_t n = total_of(lengths);
    for (std::size_t which = 0; which < std::size(kScans); ++which) {
      for (Type type : types_of(kScans[which])) {
        INFO(layout_name(layout) << ", " << cvl::type_name(type));
        const HostVector data = data_for(kScans[which], type, n, rng);
        const bool approximate = float_sum_or_product(kScans[which], type);
        {
          INFO(vcode::spelling(kScans[which]));
          check_equal(download(b, b.scan(kScans[which], upload(b, data), segdes(b, lengths))),
                      model_scan(kScans[which], data, lengths), approximate);
        }
        {
          INFO(vcode::spelling(kReductions[which]));
          check_equal(
              download(b, b.reduce(kReductions[which], upload(b, data), segdes(b, lengths))),
              model_reduce(kReductions[which], data, lengths), approximate);
        }
      }
    }
  }
}

}  // namespace cvl_test
