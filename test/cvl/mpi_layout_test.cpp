// cvl-mpi's own cases: descriptors laid out so that, at 2 to 4 processes, segments cross process
// borders, a process holds no elements, one segment spans every process, and empty segments sit
// at a border or after the last element. Every operation that reads a descriptor is compared
// with the sequential reference.
#include "layout.hpp"
#include "support.hpp"

namespace cvl_test {
namespace {

const std::vector<Ints> kLayouts = {
    {},                            // no segments
    {0},                           // one empty segment
    {1},                           // fewer elements than processes
    {0, 1, 0},                     // ... with empty segments around
    {2, 0, 0},                     // empty segments after the last element
    {1001},                        // one segment across every process
    {3, 0, 5, 1, 0, 0, 7, 2},      // segments crossing borders, empty ones between
    {0, 0, 0, 9, 0, 0, 0},         // one segment among empty ones
    {1, 1, 1, 1, 1, 1, 1, 1, 1},   // singles
    {250, 1, 250, 0, 250, 250},    // long segments ending near borders
    {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},  // pairs: each block of segments its block of elements
    {0, 2, 2, 0, 2, 2},            // ... with an empty segment at a block's start
    {2, 2, 0, 2, 2, 0},            // ... at a block's end, where it belongs to the next block
    [] {  // many segments, long then short, some empty: a process's blocks of elements begin
          // deep inside another's block of lengths, past chunks of them summed at once
      Ints lengths(1000);
      for (std::size_t i = 0; i < lengths.size(); ++i)
        lengths[i] = i % 7 == 3 ? 0 : static_cast<std::int32_t>(i < 400 ? 8 + i % 5 : 1);
      return lengths;
    }(),
};

Ints iota_ints(std::size_t n, std::int32_t from) {
  Ints out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = from + static_cast<std::int32_t>(i);
  return out;
}

// Indices in [0, length of the element's segment), from `rng`.
Ints indices_within(const Ints& lengths, std::mt19937_64& rng) {
  Ints out;
  for (auto length : lengths)
    for (std::int32_t j = 0; j < length; ++j)
      out.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(length)));
  return out;
}

// A permutation of each segment.
Ints permutation_within(const Ints& lengths, std::mt19937_64& rng) {
  Ints out;
  for (auto length : lengths) {
    Ints p = iota_ints(static_cast<std::size_t>(length), 0);
    std::shuffle(p.begin(), p.end(), rng);
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

}  // namespace

TEST_CASE("mpi layouts: every descriptor operation matches the reference", "[mpi]") {
  CVL_BACKEND(b);
  cvl::Backend& ref = reference_backend();
  for (const Ints& lengths : kLayouts) {
    INFO("lengths " << describe(HostVector{Type::Int, lengths, {}, {}}));
    std::mt19937_64 rng(lengths.size() * 7 + total_of(lengths));
    const std::size_t n = total_of(lengths), m = lengths.size();
    const Ints values = random_ints(n, -50, 50, rng);
    const Floats fvalues = random_floats(n, -1.0, 1.0, rng);
    const Bools flags = random_bools(n, 0.5, rng);
    const Ints per_segment = random_ints(m, -9, 9, rng);
    Ints first_index(m, 0);  // EXTRACT and REPLACE: an index inside each non-empty segment
    bool all_nonempty = true;
    for (std::size_t k = 0; k < m; ++k) {
      if (lengths[k] == 0) all_nonempty = false;
      else first_index[k] = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(lengths[k]));
    }
    auto both = [&](auto&& op) {
      return std::pair{op(b), op(ref)};
    };
    auto same_ints = [&](auto&& op) {
      auto [got, want] = both([&](cvl::Backend& x) { return to_ints(x, op(x)); });
      check_equal(got, want);
    };

    CHECK(lengths_of(b, segdes(b, lengths)) == lengths);
    for (Op op : {Op::PlusScan, Op::MaxScan, Op::MinScan, Op::PlusReduce, Op::MaxReduce,
                  Op::MinReduce, Op::MulReduce}) {
      INFO(vcode::spelling(op));
      const bool is_scan = vcode::info(op).family == vcode::Family::Scan;
      same_ints([&](cvl::Backend& x) {
        return is_scan ? x.scan(op, ints(x, values), segdes(x, lengths))
                       : x.reduce(op, ints(x, values), segdes(x, lengths));
      });
      auto [got, want] = both([&](cvl::Backend& x) {
        return to_floats(x, is_scan ? x.scan(op, floats(x, fvalues), segdes(x, lengths))
                                    : x.reduce(op, floats(x, fvalues), segdes(x, lengths)));
      });
      check_equal(HostVector{Type::Float, {}, got, {}}, HostVector{Type::Float, {}, want, {}},
                  /*approximate=*/true);
    }
    same_ints([&](cvl::Backend& x) { return x.distribute(ints(x, per_segment), segdes(x, lengths)); });
    same_ints([&](cvl::Backend& x) {
      return x.index(ints(x, per_segment), ints(x, iota_ints(m, -3)), segdes(x, lengths));
    });
    for (Op op : {Op::RankUp, Op::RankDown}) {
      same_ints([&](cvl::Backend& x) { return x.rank(op, ints(x, values), segdes(x, lengths)); });
    }
    same_ints([&](cvl::Backend& x) {
      auto [kept, kept_sd] = x.pack(ints(x, values), bools(x, flags), segdes(x, lengths));
      Ints out = to_ints(x, kept);
      for (auto length : lengths_of(x, kept_sd)) out.push_back(-1000 - length);
      return ints(x, out);
    });
    const Ints gather_index = indices_within(lengths, rng);
    same_ints([&](cvl::Backend& x) {
      cvl::PermuteOperands o;
      o.values = ints(x, values);
      o.indices = ints(x, gather_index);
      o.source_segdes = segdes(x, lengths);
      o.dest_segdes = segdes(x, lengths);
      return x.permute(Op::BPermute, std::move(o));
    });
    const Ints scatter_index = permutation_within(lengths, rng);
    same_ints([&](cvl::Backend& x) {
      cvl::PermuteOperands o;
      o.values = ints(x, values);
      o.indices = ints(x, scatter_index);
      o.source_segdes = segdes(x, lengths);
      return x.permute(Op::Permute, std::move(o));
    });
    same_ints([&](cvl::Backend& x) {
      cvl::PermuteOperands o;
      o.values = ints(x, values);
      o.indices = ints(x, scatter_index);
      o.flags = bools(x, flags);
      o.defaults = ints(x, iota_ints(n, 100));
      o.source_segdes = segdes(x, lengths);
      o.dest_segdes = segdes(x, lengths);
      return x.permute(Op::DFPermute, std::move(o));
    });
    if (all_nonempty) {
      same_ints([&](cvl::Backend& x) {
        return x.extract(ints(x, values), ints(x, first_index), segdes(x, lengths));
      });
      same_ints([&](cvl::Backend& x) {
        return x.replace(ints(x, values), ints(x, first_index), ints(x, per_segment),
                         segdes(x, lengths));
      });
    }
  }
}

TEST_CASE("mpi: an index outside its segment is the same error on every process", "[mpi]") {
  CVL_BACKEND(b);
  // The bad index is in the last segment, which at several processes only the last one holds.
  const Ints lengths = {4, 4, 4, 4};
  cvl::PermuteOperands o;
  o.values = ints(b, iota_ints(16, 0));
  o.indices = ints(b, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 9});
  o.source_segdes = segdes(b, lengths);
  o.dest_segdes = segdes(b, lengths);
  CHECK_THROWS_WITH(b.permute(Op::BPermute, std::move(o)),
                    "BPERMUTE: index 9 at position 15 is outside its segment of length 4");
  CHECK_THROWS_WITH(b.make_segdes(ints(b, {3, 2, 1, -1})),
                    Catch::Contains("negative segment length -1 at position 3"));
  // The backend still works afterwards: the error left no process behind.
  CHECK(to_ints(b, b.reduce(Op::PlusReduce, ints(b, iota_ints(16, 0)), segdes(b, lengths))) ==
        Ints{6, 22, 38, 54});
}

TEST_CASE("mpi: the owner of each position, found by comparison or by division", "[mpi]") {
  for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{1001}}) {
    for (int size = 1; size <= 12; ++size) {
      const cvl::mpi::Owners owners(n, size);
      for (std::size_t i = 0; i < n; ++i) {
        INFO("n " << n << ", " << size << " processes, position " << i);
        const int owner = cvl::mpi::owner_of(i, n, size);
        REQUIRE(owners(i) == owner);
        const cvl::mpi::Range block = cvl::mpi::block_of(n, owner, size);
        REQUIRE((block.begin <= i && i < block.end));
      }
    }
  }
}

}  // namespace cvl_test
