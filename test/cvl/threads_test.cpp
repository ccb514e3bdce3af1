// Randomized comparison with the sequential reference backend on inputs large enough to take
// the threaded paths: exact for INT and BOOL (and every elementwise op but the transcendentals on
// a GPU's math library), within a relative 1e-9 for FLOAT sums and products.
#include "support.hpp"

namespace cvl_test {
namespace {

// Operands for an elementwise op: random, with divisors kept non-zero.
std::vector<HostVector> operands_for(const vcode::OpInfo& info, Type type, std::size_t n,
                                     std::mt19937_64& rng) {
  std::vector<HostVector> operands;
  for (char a : info.args) {
    Type t = a == 'I' ? Type::Int : a == 'F' ? Type::Float : a == 'B' ? Type::Bool : type;
    HostVector h = random_vector(t, n, rng);
    if (t == Type::Float)
      h.f = random_floats(n, -3.0, 3.0, rng);  // inside the libm domains, mostly
    operands.push_back(std::move(h));
  }
  if (info.spelling == "/" || info.spelling == "%")
    for (auto& x : operands[1].i)
      if (x == 0) x = 1;
  return operands;
}

}  // namespace

TEST_CASE("every elementwise op agrees with the sequential reference", "[threads][elementwise]") {
  CVL_BACKEND(b);
  cvl::Backend& ref = reference_backend();
  std::mt19937_64 rng(123);
  const std::size_t n = 150001;
  for (std::size_t id = 0; id < vcode::op_count; ++id) {
    const auto op = static_cast<Op>(id);
    const vcode::OpInfo& info = vcode::info(op);
    if (info.family != vcode::Family::Elementwise) continue;
    std::vector<Type> types;
    if (info.implied != vcode::Implied::None) {
      types.push_back(info.implied == vcode::Implied::Float  ? Type::Float
                      : info.implied == vcode::Implied::Bool ? Type::Bool
                                                             : Type::Int);
    } else {
      using vcode::TypeKeyword, vcode::typeset::bit;
      if (info.type_set & bit(TypeKeyword::Int)) types.push_back(Type::Int);
      if (info.type_set & bit(TypeKeyword::Float)) types.push_back(Type::Float);
      if (info.type_set & bit(TypeKeyword::Bool)) types.push_back(Type::Bool);
    }
    for (Type type : types) {
      INFO(info.spelling << " " << cvl::type_name(type));
      auto host = operands_for(info, type, n, rng);
      std::vector<cvl::Vector> mine, theirs;
      for (const auto& h : host) {
        mine.push_back(upload(b, h));
        theirs.push_back(upload(ref, h));
      }
      check_equal(download(b, b.elementwise(op, type, mine)),
                  download(ref, ref.elementwise(op, type, theirs)), libm_match(b_factory, op));
    }
  }
}

TEST_CASE("scans and reductions agree with the sequential reference", "[threads][scan][reduce]") {
  CVL_BACKEND(b);
  cvl::Backend& ref = reference_backend();
  std::mt19937_64 rng(321);
  const Op scans[] = {Op::PlusScan, Op::MulScan, Op::MaxScan, Op::MinScan,
                      Op::AndScan,  Op::OrScan,  Op::XorScan};
  const Op reductions[] = {Op::PlusReduce, Op::MulReduce, Op::MaxReduce, Op::MinReduce,
                           Op::AndReduce,  Op::OrReduce,  Op::XorReduce};
  for (Layout layout : {Layout::One, Layout::GiantAmongTiny, Layout::Mixed, Layout::Tiny}) {
    const Ints lengths = make_lengths(layout, 250000, rng);
    const std::size_t n = total_of(lengths);
    for (std::size_t w = 0; w < std::size(scans); ++w) {
      const bool logical = w >= 4;
      for (Type type : {Type::Int, logical ? Type::Bool : Type::Float}) {
        HostVector data = random_vector(type, n, rng);
        if (type == Type::Float && w == 1) data.f = random_floats(n, 0.99, 1.01, rng);
        if (type == Type::Float && w == 0) data.f = random_floats(n, 0.0, 1.0, rng);
        if (type == Type::Float && w >= 2) data.f[n / 2] = std::numeric_limits<double>::quiet_NaN();
        const bool approximate = type == Type::Float && w < 2;
        INFO(layout_name(layout) << ", " << vcode::spelling(scans[w]) << " "
                                 << cvl::type_name(type));
        check_equal(download(b, b.scan(scans[w], upload(b, data), segdes(b, lengths))),
                    download(ref, ref.scan(scans[w], upload(ref, data), segdes(ref, lengths))),
                    approximate);
        check_equal(
            download(b, b.reduce(reductions[w], upload(b, data), segdes(b, lengths))),
            download(ref, ref.reduce(reductions[w], upload(ref, data), segdes(ref, lengths))),
            approximate);
      }
    }
  }
}

TEST_CASE("rank, pack, dist and index agree with the sequential reference", "[threads]") {
  CVL_BACKEND(b);
  cvl::Backend& ref = reference_backend();
  std::mt19937_64 rng(555);
  for (Layout layout : kAllLayouts) {
    INFO(layout_name(layout));
    const Ints lengths = make_lengths(layout, 300000, rng);
    const std::size_t n = total_of(lengths), m = lengths.size();
    for (Type type : {Type::Int, Type::Float}) {
      HostVector data = random_vector(type, n, rng);
      for (Op op : {Op::RankUp, Op::RankDown})
        check_equal(download(b, b.rank(op, upload(b, data), segdes(b, lengths))),
                    download(ref, ref.rank(op, upload(ref, data), segdes(ref, lengths))));
    }
    const Bools flags = random_bools(n, 0.3, rng);
    HostVector data = random_vector(Type::Float, n, rng);
    auto [packed, packed_sd] = b.pack(upload(b, data), bools(b, flags), segdes(b, lengths));
    auto [ref_packed, ref_sd] =
        ref.pack(upload(ref, data), bools(ref, flags), segdes(ref, lengths));
    check_equal(download(b, packed), download(ref, ref_packed));
    check_equal(lengths_of(b, packed_sd), lengths_of(ref, ref_sd));

    const Ints starts = random_ints(m, -100, 100, rng), strides = random_ints(m, -5, 5, rng);
    check_equal(
        to_ints(b, b.index(ints(b, starts), ints(b, strides), segdes(b, lengths))),
        to_ints(ref, ref.index(ints(ref, starts), ints(ref, strides), segdes(ref, lengths))));
    check_equal(to_ints(b, b.distribute(ints(b, starts), segdes(b, lengths))),
                to_ints(ref, ref.distribute(ints(ref, starts), segdes(ref, lengths))));
  }
}

}  // namespace cvl_test
