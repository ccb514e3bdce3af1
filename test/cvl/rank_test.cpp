// RANK_UP / RANK_DOWN (spec/CVL.md §6, VCODE.md §6.8): stable, per segment, INT signed order,
// FLOAT in IEEE total order or (as an option) the x86-64 reference's legacy order.
#include <limits>

#include "support.hpp"

namespace cvl_test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Ints rank_of(cvl::Backend& b, Op op, const cvl::Vector& v, const Ints& lengths) {
  return to_ints(b, b.rank(op, v, segdes(b, lengths)));
}

}  // namespace

TEST_CASE("RANK: the worked examples", "[rank]") {
  CVL_BACKEND(b);
  CHECK(rank_of(b, Op::RankUp, ints(b, {5, -3, 5, 0, -3}), {5}) == Ints{3, 0, 4, 2, 1});
  CHECK(rank_of(b, Op::RankDown, ints(b, {5, -3, 5, 0, -3}), {5}) == Ints{0, 3, 1, 2, 4});
  CHECK(rank_of(b, Op::RankUp, ints(b, {5, -3, 5, 0, -3, 7}), {3, 3}) == Ints{1, 0, 2, 1, 0, 2});
  // CVL.md §6.3: the correct FLOAT order
  CHECK(rank_of(b, Op::RankUp, floats(b, {2.5, -1.0, 3.0, 0.0, -2.0}), {5}) == Ints{3, 1, 4, 2, 0});
}

TEST_CASE("RANK: the legacy FLOAT order of the x86-64 reference", "[rank]") {
  CVL_BACKEND_WITH_RANK_ORDER(b, cvl::FloatRankOrder::Legacy);
  CHECK(rank_of(b, Op::RankUp, floats(b, {2.5, -1.0, 3.0, 0.0, -2.0}), {5}) == Ints{1, 3, 2, 0, 4});
  // INT is unaffected by the option
  CHECK(rank_of(b, Op::RankUp, ints(b, {5, -3, 5, 0, -3}), {5}) == Ints{3, 0, 4, 2, 1});
  std::mt19937_64 rng(3);
  for (Layout layout : kAllLayouts) {
    INFO(layout_name(layout));
    const Ints lengths = make_lengths(layout, 20000, rng);
    HostVector v;
    v.type = Type::Float;
    v.f = random_floats(total_of(lengths), -100.0, 100.0, rng);
    for (std::size_t i = 0; i < v.f.size(); i += 3)
      v.f[i] = static_cast<double>(static_cast<int>(v.f[i]));
    for (Op op : {Op::RankUp, Op::RankDown})
      check_equal(rank_of(b, op, upload(b, v), lengths), model_rank(op, v, lengths, true));
  }
}

TEST_CASE("RANK: FLOAT follows the IEEE total order", "[rank]") {
  CVL_BACKEND(b);
  const Floats v{kNan, -kNan, kInf, -kInf, 0.0, -0.0, 1.0, -1.0};
  CHECK(rank_of(b, Op::RankUp, floats(b, v), {8}) == Ints{7, 0, 6, 1, 4, 3, 5, 2});
  CHECK(rank_of(b, Op::RankDown, floats(b, v), {8}) == Ints{0, 7, 1, 6, 3, 4, 2, 5});
}

TEST_CASE("RANK is stable in both directions", "[rank]") {
  CVL_BACKEND(b);
  CHECK(rank_of(b, Op::RankUp, ints(b, {2, 1, 2, 1, 2}), {5}) == Ints{2, 0, 3, 1, 4});
  CHECK(rank_of(b, Op::RankDown, ints(b, {2, 1, 2, 1, 2}), {5}) == Ints{0, 3, 1, 4, 2});
  CHECK(rank_of(b, Op::RankUp, floats(b, {1.5, 1.5, 1.5}), {3}) == Ints{0, 1, 2});
  CHECK(rank_of(b, Op::RankDown, floats(b, {1.5, 1.5, 1.5}), {3}) == Ints{0, 1, 2});
  const std::int32_t min = std::numeric_limits<std::int32_t>::min(),
                     max = std::numeric_limits<std::int32_t>::max();
  CHECK(rank_of(b, Op::RankUp, ints(b, {max, min, -1, 0, min}), {5}) == Ints{4, 0, 2, 3, 1});
  CHECK(rank_of(b, Op::RankDown, ints(b, {max, min, -1, 0, min}), {5}) == Ints{0, 3, 2, 1, 4});
}

TEST_CASE("RANK of empty vectors and empty segments", "[rank][empty]") {
  CVL_BACKEND(b);
  CHECK(rank_of(b, Op::RankUp, ints(b, {}), {}).empty());
  CHECK(rank_of(b, Op::RankDown, floats(b, {}), {0, 0}).empty());
  CHECK(rank_of(b, Op::RankUp, ints(b, {4, 3}), {0, 2, 0}) == Ints{1, 0});
  CHECK(rank_of(b, Op::RankUp, ints(b, {4, 3, 9}), {1, 1, 1}) == Ints{0, 0, 0});
}

TEST_CASE("RANK matches the model on every layout, both types and directions", "[rank][layouts]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(31);
  for (Layout layout : kAllLayouts) {
    const Ints lengths = make_lengths(layout, 200000, rng);
    const std::size_t n = total_of(lengths);
    HostVector narrow, wide, real;
    narrow.type = wide.type = Type::Int;
    real.type = Type::Float;
    narrow.i = random_ints(n, -40, 40, rng);  // many ties: stability
    wide.i = random_ints(n, std::numeric_limits<std::int32_t>::min(),
                         std::numeric_limits<std::int32_t>::max(), rng);
    real.f = random_floats(n, -1e6, 1e6, rng);
    for (std::size_t i = 0; i < n; i += 7)
      real.f[i] = static_cast<double>(static_cast<int>(real.f[i]) % 10);
    for (std::size_t i = 0; i < n; i += 101) real.f[i] = (i / 101) % 2 ? -0.0 : kInf;
    for (const HostVector* v : {&narrow, &wide, &real}) {
      for (Op op : {Op::RankUp, Op::RankDown}) {
        INFO(layout_name(layout) << ", " << describe(*v, 4) << ", " << vcode::spelling(op));
        check_equal(rank_of(b, op, upload(b, *v), lengths), model_rank(op, *v, lengths, false));
      }
    }
  }
}

}  // namespace cvl_test
