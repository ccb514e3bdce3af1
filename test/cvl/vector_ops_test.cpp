// EXTRACT, REPLACE, DIST, INDEX (spec/VCODE.md §6.7) on every element type.
#include <limits>

#include "support.hpp"

namespace cvl_test {
namespace {

constexpr Type kTypes[] = {Type::Int, Type::Float, Type::Bool};

HostVector pick(const HostVector& v, const std::vector<std::size_t>& positions) {
  HostVector out;
  out.type = v.type;
  for (std::size_t p : positions) {
    if (v.type == Type::Int)
      out.i.push_back(v.i[p]);
    else if (v.type == Type::Float)
      out.f.push_back(v.f[p]);
    else
      out.b.push_back(v.b[p]);
  }
  return out;
}

void put(HostVector& v, std::size_t at, const HostVector& from, std::size_t i) {
  if (v.type == Type::Int)
    v.i[at] = from.i[i];
  else if (v.type == Type::Float)
    v.f[at] = from.f[i];
  else
    v.b[at] = from.b[i];
}

}  // namespace

TEST_CASE("EXTRACT, REPLACE, DIST, INDEX: the worked examples", "[vector]") {
  CVL_BACKEND(b);
  const Ints v{10, 20, 30, 40, 50};
  CHECK(to_ints(b, b.extract(ints(b, v), ints(b, {1, 2}), segdes(b, {2, 3}))) == Ints{20, 50});
  CHECK(to_ints(b, b.replace(ints(b, v), ints(b, {0, 2}), ints(b, {-1, -2}), segdes(b, {2, 3}))) ==
        Ints{-1, 20, 30, 40, -2});
  CHECK(to_floats(b, b.distribute(floats(b, {1.5, 2.5, 3.5}), segdes(b, {2, 0, 3}))) ==
        Floats{1.5, 1.5, 3.5, 3.5, 3.5});
  CHECK(to_ints(b, b.index(ints(b, {0, 10, 5}), ints(b, {1, -2, 3}), segdes(b, {3, 0, 2}))) ==
        Ints{0, 1, 2, 5, 8});
  // a one-segment DIST turns a scalar into n copies; BOOL too
  CHECK(to_bools(b, b.distribute(bools(b, {1}), segdes(b, {4}))) == Bools{1, 1, 1, 1});
  CHECK(to_floats(b, b.extract(floats(b, {0.5, -0.0, 7.25}), ints(b, {2}), segdes(b, {3}))) ==
        Floats{7.25});
  CHECK(to_bools(b, b.replace(bools(b, {0, 0, 1}), ints(b, {1, 0}), bools(b, {1, 0}),
                              segdes(b, {2, 1}))) == Bools{0, 1, 0});
}

TEST_CASE("INDEX wraps like repeated INT addition", "[vector]") {
  CVL_BACKEND(b);
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  const std::int32_t min = std::numeric_limits<std::int32_t>::min();
  CHECK(to_ints(b, b.index(ints(b, {max - 1, min}), ints(b, {1, -1}), segdes(b, {3, 2}))) ==
        Ints{max - 1, max, min, min, max});
  CHECK(to_ints(b, b.index(ints(b, {0}), ints(b, {1 << 30}), segdes(b, {5}))) ==
        Ints{0, 1 << 30, min, -(1 << 30), 0});
}

TEST_CASE("EXTRACT, REPLACE, DIST, INDEX on empty and zero segments", "[vector][empty]") {
  CVL_BACKEND(b);
  for (Type t : kTypes) {
    INFO(cvl::type_name(t));
    CHECK(b.extract(b.upload(t, nullptr, 0), ints(b, {}), segdes(b, {})).length == 0);
    CHECK(b.replace(b.upload(t, nullptr, 0), ints(b, {}), b.upload(t, nullptr, 0), segdes(b, {}))
              .length == 0);
    CHECK(b.distribute(b.upload(t, nullptr, 0), segdes(b, {})).length == 0);
  }
  CHECK(to_ints(b, b.distribute(ints(b, {1, 2, 3}), segdes(b, {0, 0, 0}))).empty());
  CHECK(to_ints(b, b.distribute(ints(b, {1, 2, 3}), segdes(b, {0, 2, 0}))) == Ints{2, 2});
  CHECK(to_ints(b, b.index(ints(b, {4, 5}), ints(b, {1, 1}), segdes(b, {0, 0}))).empty());
  CHECK(to_ints(b, b.index(ints(b, {}), ints(b, {}), segdes(b, {}))).empty());
}

// cvl-cpu marks descriptors whose segments all have one length; with length one, DIST and INDEX
// hand back their operand. Lengths that only sum like uniform ones must not be taken for them.
TEST_CASE("DIST and INDEX on uniform lengths and on look-alikes", "[vector][uniform]") {
  CVL_BACKEND(b);
  CHECK(to_ints(b, b.distribute(ints(b, {7, 8, 9}), segdes(b, {1, 1, 1}))) == Ints{7, 8, 9});
  CHECK(to_ints(b, b.index(ints(b, {7, 8, 9}), ints(b, {5, 5, 5}), segdes(b, {1, 1, 1}))) ==
        Ints{7, 8, 9});
  CHECK(to_ints(b, b.distribute(ints(b, {7, 8, 9}), segdes(b, {2, 2, 2}))) ==
        Ints{7, 7, 8, 8, 9, 9});
  CHECK(to_ints(b, b.index(ints(b, {7, 8}), ints(b, {3, -1}), segdes(b, {2, 2}))) ==
        Ints{7, 10, 8, 7});
  // totals equal to the segment count (or a multiple of it), lengths not all equal
  CHECK(to_ints(b, b.distribute(ints(b, {7, 8, 9}), segdes(b, {0, 2, 1}))) == Ints{8, 8, 9});
  CHECK(to_ints(b, b.index(ints(b, {7, 8, 9}), ints(b, {1, 1, 1}), segdes(b, {2, 0, 1}))) ==
        Ints{7, 8, 9});
  CHECK(to_ints(b, b.index(ints(b, {7, 8}), ints(b, {1, 1}), segdes(b, {3, 1}))) ==
        Ints{7, 8, 9, 8});
  // the operand given back stays a value: the copy kept by the caller is unchanged by later work
  const cvl::Vector values = ints(b, {1, 2, 3});
  cvl::Vector spread = b.distribute(values, segdes(b, {1, 1, 1}));
  cvl::Vector doubled = ew(b, Op::Add, Type::Int, std::move(spread), ints(b, {1, 2, 3}));
  CHECK(to_ints(b, doubled) == Ints{2, 4, 6});
  CHECK(to_ints(b, values) == Ints{1, 2, 3});
  const cvl::Vector starts = ints(b, {4, 5});
  cvl::Vector indexed = b.index(starts, ints(b, {1, 1}), segdes(b, {1, 1}));
  cvl::Vector negated = ew(b, Op::Sub, Type::Int, ints(b, {0, 0}), std::move(indexed));
  CHECK(to_ints(b, negated) == Ints{-4, -5});
  CHECK(to_ints(b, starts) == Ints{4, 5});
}

TEST_CASE("EXTRACT, REPLACE, DIST, INDEX match the model on every layout and type",
          "[vector][layouts]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(7);
  for (Layout layout : kAllLayouts) {
    const Ints lengths = make_lengths(layout, 80000, rng);
    const std::size_t n = total_of(lengths), m = lengths.size();
    const auto offsets = offsets_of(lengths);
    // one in-segment index per non-empty segment (EXTRACT/REPLACE need non-empty segments)
    Ints nonempty_lengths, idx;
    for (std::int32_t len : lengths) {
      nonempty_lengths.push_back(std::max(len, 1));
      idx.push_back(std::uniform_int_distribution<std::int32_t>(0, std::max(len, 1) - 1)(rng));
    }
    const auto ne_offsets = offsets_of(nonempty_lengths);
    std::vector<std::size_t> extracted;
    for (std::size_t k = 0; k < m; ++k)
      extracted.push_back(ne_offsets[k] + static_cast<std::size_t>(idx[k]));

    for (Type t : kTypes) {
      INFO(layout_name(layout) << ", " << cvl::type_name(t));
      const HostVector v = random_vector(t, total_of(nonempty_lengths), rng);
      const HostVector x = random_vector(t, m, rng);
      check_equal(download(b, b.extract(upload(b, v), ints(b, idx), segdes(b, nonempty_lengths))),
                  pick(v, extracted));

      HostVector replaced = v;
      for (std::size_t k = 0; k < m; ++k) put(replaced, extracted[k], x, k);
      check_equal(download(b, b.replace(upload(b, v), ints(b, idx), upload(b, x),
                                        segdes(b, nonempty_lengths))),
                  replaced);

      std::vector<std::size_t> owner;
      for (std::size_t k = 0; k < m; ++k)
        owner.insert(owner.end(), static_cast<std::size_t>(lengths[k]), k);
      check_equal(download(b, b.distribute(upload(b, x), segdes(b, lengths))), pick(x, owner));
    }
    const Ints starts = random_ints(m, -1000000, 1000000, rng),
               strides = random_ints(m, -1000, 1000, rng);
    Ints expected(n);
    for (std::size_t k = 0; k < m; ++k)
      for (std::size_t j = 0; j < static_cast<std::size_t>(lengths[k]); ++j)
        expected[offsets[k] + j] = starts[k] + static_cast<std::int32_t>(j) * strides[k];
    check_equal(to_ints(b, b.index(ints(b, starts), ints(b, strides), segdes(b, lengths))),
                expected);
  }
}

}  // namespace cvl_test
