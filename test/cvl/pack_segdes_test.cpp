// PACK, MAKE_SEGDES and LENGTHS (spec/VCODE.md §6.8).
#include "support.hpp"

namespace cvl_test {
namespace {

constexpr Type kTypes[] = {Type::Int, Type::Float, Type::Bool};

// Model: the flagged elements in order, and each segment's count of true flags.
std::pair<HostVector, Ints> model_pack(const HostVector& v, const Bools& flags,
                                       const Ints& lengths) {
  HostVector out;
  out.type = v.type;
  Ints counts;
  auto offsets = offsets_of(lengths);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    std::int32_t count = 0;
    for (std::size_t i = offsets[k]; i < offsets[k + 1]; ++i) {
      if (!flags[i]) continue;
      ++count;
      if (v.type == Type::Int)
        out.i.push_back(v.i[i]);
      else if (v.type == Type::Float)
        out.f.push_back(v.f[i]);
      else
        out.b.push_back(v.b[i]);
    }
    counts.push_back(count);
  }
  return {out, counts};
}

void check_pack(cvl::Backend& b, const HostVector& v, const Bools& flags, const Ints& lengths) {
  auto [data, sd] = b.pack(upload(b, v), bools(b, flags), segdes(b, lengths));
  auto [expected_data, expected_lengths] = model_pack(v, flags, lengths);
  check_equal(download(b, data), expected_data);
  check_equal(lengths_of(b, sd), expected_lengths);
  CHECK(sd.segments == lengths.size());
  CHECK(sd.total == expected_data.size());
}

}  // namespace

TEST_CASE("PACK: the worked example", "[pack]") {
  CVL_BACKEND(b);
  auto [data, sd] = b.pack(ints(b, {1, 2, 3, 4, 5}), bools(b, {1, 0, 1, 1, 0}), segdes(b, {2, 3}));
  CHECK(to_ints(b, data) == Ints{1, 3, 4});
  CHECK(lengths_of(b, sd) == Ints{1, 2});
  CHECK(sd.segments == 2);
  CHECK(sd.total == 3);
}

TEST_CASE("PACK: no true flag, empty vectors, empty and zero segments", "[pack][empty]") {
  CVL_BACKEND(b);
  for (Type t : kTypes) {
    INFO(cvl::type_name(t));
    std::mt19937_64 rng(1);
    check_pack(b, random_vector(t, 5, rng), {0, 0, 0, 0, 0}, {2, 0, 3});
    check_pack(b, random_vector(t, 0, rng), {}, {});
    check_pack(b, random_vector(t, 0, rng), {}, {0, 0, 0});
    check_pack(b, random_vector(t, 4, rng), {1, 1, 1, 1}, {0, 4, 0});
  }
}

TEST_CASE("PACK matches the model on every layout and type", "[pack][layouts]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(17);
  for (Layout layout : kAllLayouts) {
    const Ints lengths = make_lengths(layout, 150000, rng);
    const std::size_t n = total_of(lengths);
    for (double p : {0.0, 0.03, 0.5, 0.97, 1.0}) {
      const Bools flags = random_bools(n, p, rng);
      for (Type t : kTypes) {
        INFO(layout_name(layout) << ", " << cvl::type_name(t) << ", flag probability " << p);
        check_pack(b, random_vector(t, n, rng), flags, lengths);
      }
    }
  }
}

TEST_CASE("MAKE_SEGDES and LENGTHS", "[segdes]") {
  CVL_BACKEND(b);
  cvl::Segdes sd = segdes(b, {2, 0, 3});
  CHECK(sd.segments == 3);
  CHECK(sd.total == 5);
  CHECK(lengths_of(b, sd) == Ints{2, 0, 3});

  cvl::Segdes none = segdes(b, {});  // `[ ]`: no segments, and LENGTHS of it is ( )
  CHECK(none.segments == 0);
  CHECK(none.total == 0);
  CHECK(lengths_of(b, none).empty());

  std::mt19937_64 rng(4);
  const Ints many = random_ints(300000, 0, 5, rng);
  cvl::Segdes big = segdes(b, many);
  CHECK(big.segments == many.size());
  CHECK(big.total == total_of(many));
  check_equal(lengths_of(b, big), many);
}

}  // namespace cvl_test
