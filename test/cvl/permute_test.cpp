// The permute family (spec/CVL.md §3.5, VCODE.md §6.7) on every element type.
#include <algorithm>
#include <numeric>

#include "support.hpp"

namespace cvl_test {
namespace {

// A host vector of `type` built from integers (0/1 for BOOL, x + 0.25 for FLOAT).
HostVector from_ints(Type type, const Ints& values) {
  HostVector h;
  h.type = type;
  for (std::int32_t x : values) {
    if (type == Type::Int)
      h.i.push_back(x);
    else if (type == Type::Float)
      h.f.push_back(x + 0.25);
    else
      h.b.push_back(static_cast<std::uint8_t>(x & 1));
  }
  return h;
}

void copy_element(HostVector& to, std::size_t at, const HostVector& from, std::size_t i) {
  if (to.type == Type::Int)
    to.i[at] = from.i[i];
  else if (to.type == Type::Float)
    to.f[at] = from.f[i];
  else
    to.b[at] = from.b[i];
}

HostVector zeros(Type type, std::size_t n) {
  HostVector h;
  h.type = type;
  h.i.assign(type == Type::Int ? n : 0, 0);
  h.f.assign(type == Type::Float ? n : 0, 0.0);
  h.b.assign(type == Type::Bool ? n : 0, 0);
  return h;
}

// Model of the scatters: into `out`, for source element j of segment k (flagged, when flags are
// given): out[start_d(k) + idx[j]] = v[j].
void model_scatter(HostVector& out, const HostVector& v, const Ints& idx, const Bools* flags,
                   const Ints& source_lengths, const Ints& dest_lengths) {
  auto so = offsets_of(source_lengths), dof = offsets_of(dest_lengths);
  for (std::size_t k = 0; k < source_lengths.size(); ++k)
    for (std::size_t j = so[k]; j < so[k + 1]; ++j)
      if (!flags || (*flags)[j]) copy_element(out, dof[k] + static_cast<std::size_t>(idx[j]), v, j);
}

// Model of the gathers: out[j] = v[start_s(k) + idx[j]] for destination element j of segment k,
// zero where a flag is false.
HostVector model_gather(const HostVector& v, const Ints& idx, const Bools* flags,
                        const Ints& source_lengths, const Ints& dest_lengths) {
  HostVector out = zeros(v.type, idx.size());
  auto so = offsets_of(source_lengths), dof = offsets_of(dest_lengths);
  for (std::size_t k = 0; k < dest_lengths.size(); ++k)
    for (std::size_t j = dof[k]; j < dof[k + 1]; ++j)
      if (!flags || (*flags)[j]) copy_element(out, j, v, so[k] + static_cast<std::size_t>(idx[j]));
  return out;
}

// Distinct indices for each source segment into the destination segment of the same number.
Ints injective_indices(const Ints& source_lengths, const Ints& dest_lengths, std::mt19937_64& rng) {
  Ints idx;
  for (std::size_t k = 0; k < source_lengths.size(); ++k) {
    Ints targets(static_cast<std::size_t>(dest_lengths[k]));
    std::iota(targets.begin(), targets.end(), 0);
    std::shuffle(targets.begin(), targets.end(), rng);
    idx.insert(idx.end(), targets.begin(), targets.begin() + source_lengths[k]);
  }
  return idx;
}

// Runs one permute; `flags` and `defaults` only where the op takes them.
HostVector run(cvl::Backend& b, Op op, const HostVector& v, const Ints& idx, const Bools* flags,
               const HostVector* defaults, const Ints& source_lengths, const Ints& dest_lengths) {
  cvl::PermuteOperands o;
  o.values = upload(b, v);
  o.indices = ints(b, idx);
  if (flags) o.flags = bools(b, *flags);
  if (defaults) o.defaults = upload(b, *defaults);
  o.source_segdes = segdes(b, source_lengths);
  if (op != Op::Permute) o.dest_segdes = segdes(b, dest_lengths);
  return download(b, b.permute(op, std::move(o)));
}

constexpr Type kTypes[] = {Type::Int, Type::Float, Type::Bool};

// The elements of `v` where `keep` is true, in order.
HostVector kept_at(const HostVector& v, const std::vector<bool>& keep) {
  HostVector out = zeros(v.type, 0);
  for (std::size_t j = 0; j < keep.size(); ++j) {
    if (!keep[j]) continue;
    if (v.type == Type::Int) out.i.push_back(v.i[j]);
    else if (v.type == Type::Float) out.f.push_back(v.f[j]);
    else out.b.push_back(v.b[j]);
  }
  return out;
}

}  // namespace

TEST_CASE("permutes: the worked examples on every type", "[permute]") {
  CVL_BACKEND(b);
  for (Type t : kTypes) {
    INFO(cvl::type_name(t));
    // PERMUTE: w[start(k) + i[j]] = v[j]
    check_equal(run(b, Op::Permute, from_ints(t, {1, 2, 3, 4, 5}), {2, 0, 1, 1, 0}, nullptr,
                    nullptr, {3, 2}, {}),
                from_ints(t, {2, 3, 1, 5, 4}));
    // DPERMUTE, VCODE.md §6.7
    const HostVector dflt = from_ints(t, {-1, -2, -3, -4, -5});
    check_equal(
        run(b, Op::DPermute, from_ints(t, {10, 20, 30}), {1, 0, 1}, nullptr, &dflt, {1, 2}, {2, 3}),
        from_ints(t, {-1, 10, 20, 30, -5}));
    // FPERMUTE: unwritten positions are zero
    const Bools f1{1, 0, 1, 1};
    HostVector expected = zeros(t, 5);
    copy_element(expected, 1, from_ints(t, {1}), 0);
    copy_element(expected, 4, from_ints(t, {3}), 0);
    copy_element(expected, 3, from_ints(t, {4}), 0);
    check_equal(run(b, Op::FPermute, from_ints(t, {1, 2, 3, 4}), {1, 0, 1, 0}, &f1, nullptr, {2, 2},
                    {3, 2}),
                expected);
    // BPERMUTE, VCODE.md §6.7
    check_equal(run(b, Op::BPermute, from_ints(t, {10, 20, 30, 40, 50}), {1, 1, 0, 2, 2, 0, 1},
                    nullptr, nullptr, {2, 3}, {3, 4}),
                from_ints(t, {20, 20, 10, 50, 50, 30, 40}));
    // BFPERMUTE: zero where unflagged, and that index (9) is not used
    const Bools f2{1, 0, 1, 1};
    HostVector gathered = from_ints(t, {20, 0, 30, 50});
    copy_element(gathered, 1, zeros(t, 1), 0);
    check_equal(run(b, Op::BFPermute, from_ints(t, {10, 20, 30, 40, 50}), {1, 9, 0, 2}, &f2,
                    nullptr, {2, 3}, {2, 2}),
                gathered);
    // DFPERMUTE
    const Bools f3{1, 0, 1};
    const HostVector nines = from_ints(t, {9, 9, 9, 9});
    HostVector merged = from_ints(t, {1, 9, 3, 9});
    check_equal(
        run(b, Op::DFPermute, from_ints(t, {1, 2, 3}), {0, 1, 0}, &f3, &nines, {2, 1}, {2, 2}),
        merged);
  }
}

TEST_CASE("permutes: on collisions the later source element wins", "[permute]") {
  CVL_BACKEND(b);
  const HostVector dflt = from_ints(Type::Int, {-1, -2, -3});
  check_equal(
      run(b, Op::DPermute, from_ints(Type::Int, {10, 20}), {1, 1}, nullptr, &dflt, {2}, {3}),
      from_ints(Type::Int, {-1, 20, -3}));
  const Bools all{1, 1, 1};
  check_equal(
      run(b, Op::FPermute, from_ints(Type::Int, {10, 20, 30}), {2, 0, 2}, &all, nullptr, {3}, {3}),
      from_ints(Type::Int, {20, 0, 30}));
}

// Many writers per position, in segments, large enough for a GPU to run them all at once: the
// model's sequential order decides, whatever order the writes happen in.
TEST_CASE("permutes: heavy collisions keep the highest source position", "[permute]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(99);
  const Ints source_lengths{100000, 0, 60001, 3};
  const Ints dest_lengths{7, 5, 1, 3};
  Ints idx;
  for (std::size_t k = 0; k < source_lengths.size(); ++k)
    for (std::int32_t j = 0; j < source_lengths[k]; ++j)
      idx.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(dest_lengths[k])));
  const std::size_t n = idx.size();
  Bools flags(n);
  for (auto& f : flags) f = static_cast<std::uint8_t>(rng() % 3 != 0);
  for (Type t : kTypes) {
    INFO(cvl::type_name(t));
    const HostVector v = random_vector(t, n, rng);
    const HostVector dflt = random_vector(t, total_of(dest_lengths), rng);
    HostVector expected = dflt;
    model_scatter(expected, v, idx, nullptr, source_lengths, dest_lengths);
    check_equal(run(b, Op::DPermute, v, idx, nullptr, &dflt, source_lengths, dest_lengths),
                expected);
    expected = dflt;
    model_scatter(expected, v, idx, &flags, source_lengths, dest_lengths);
    check_equal(run(b, Op::DFPermute, v, idx, &flags, &dflt, source_lengths, dest_lengths),
                expected);
  }
  // One long segment whose every element writes one of its last positions: where the elements
  // are spread over processes, the earlier ones' values arrive where later ones write too.
  const std::size_t m = 200003;
  const Ints one_segment{static_cast<std::int32_t>(m)};
  Ints to_end(m);
  for (auto& i : to_end) i = static_cast<std::int32_t>(m - 1 - rng() % 64);
  const Bools some = random_bools(m, 0.7, rng);
  for (Type t : kTypes) {
    INFO("to the end, " << cvl::type_name(t));
    const HostVector v = random_vector(t, m, rng), dflt = random_vector(t, m, rng);
    HostVector expected = dflt;
    model_scatter(expected, v, to_end, nullptr, one_segment, one_segment);
    check_equal(run(b, Op::DPermute, v, to_end, nullptr, &dflt, one_segment, one_segment), expected);
    expected = dflt;
    model_scatter(expected, v, to_end, &some, one_segment, one_segment);
    check_equal(run(b, Op::DFPermute, v, to_end, &some, &dflt, one_segment, one_segment), expected);
  }
}

TEST_CASE("permutes: empty vectors, empty segments, no segments", "[permute][empty]") {
  CVL_BACKEND(b);
  for (Type t : kTypes) {
    INFO(cvl::type_name(t));
    const HostVector none = zeros(t, 0);
    const Bools no_flags;
    CHECK(run(b, Op::Permute, none, {}, nullptr, nullptr, {}, {}).size() == 0);
    CHECK(run(b, Op::Permute, none, {}, nullptr, nullptr, {0, 0}, {}).size() == 0);
    CHECK(run(b, Op::BPermute, none, {}, nullptr, nullptr, {0, 0}, {0, 0}).size() == 0);
    CHECK(run(b, Op::BFPermute, none, {}, &no_flags, nullptr, {}, {}).size() == 0);
    // empty sources: DPERMUTE returns the default, FPERMUTE zeros
    const HostVector dflt = from_ints(t, {7, 8});
    check_equal(run(b, Op::DPermute, none, {}, nullptr, &dflt, {0, 0}, {1, 1}), dflt);
    check_equal(run(b, Op::DFPermute, none, {}, &no_flags, &dflt, {0}, {2}), dflt);
    check_equal(run(b, Op::FPermute, none, {}, &no_flags, nullptr, {0, 0}, {2, 0}), zeros(t, 2));
  }
}

TEST_CASE("permutes match the model on every layout and type", "[permute][layouts]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(99);
  for (Layout layout : kAllLayouts) {
    const Ints dest_lengths = make_lengths(layout, 60000, rng);
    const std::size_t n_dest = total_of(dest_lengths);
    // scatters: each source segment is at most as long as its destination segment
    Ints source_lengths;
    for (std::int32_t len : dest_lengths)
      source_lengths.push_back(std::uniform_int_distribution<std::int32_t>(len * 3 / 4, len)(rng));
    const std::size_t n_source = total_of(source_lengths);
    const Ints into = injective_indices(source_lengths, dest_lengths, rng);
    const Ints permutation = injective_indices(dest_lengths, dest_lengths, rng);
    const Bools source_flags = random_bools(n_source, 0.6, rng);
    // gathers: any index of the (non-empty) source segment
    Ints gather_lengths, from;
    for (std::int32_t len : dest_lengths)
      gather_lengths.push_back(
          len == 0 ? std::uniform_int_distribution<std::int32_t>(0, 2)(rng)
                   : std::max(1, len + std::uniform_int_distribution<std::int32_t>(-2, 2)(rng)));
    for (std::size_t k = 0; k < dest_lengths.size(); ++k) {
      Ints part = random_ints(static_cast<std::size_t>(dest_lengths[k]), 0,
                              std::max(0, gather_lengths[k] - 1), rng);
      from.insert(from.end(), part.begin(), part.end());
    }
    const Bools dest_flags = random_bools(n_dest, 0.6, rng);
    Ints from_where_flagged = from;  // an unflagged position's index is never looked at
    for (std::size_t j = 0; j < n_dest; ++j)
      if (!dest_flags[j]) from_where_flagged[j] = j % 2 ? -5 : 1 << 30;

    for (Type t : kTypes) {
      INFO(layout_name(layout) << ", " << cvl::type_name(t));
      const HostVector dest_sized = random_vector(t, n_dest, rng);
      const HostVector source_sized = random_vector(t, n_source, rng);
      const HostVector gather_source = random_vector(t, total_of(gather_lengths), rng);

      HostVector expected = zeros(t, n_dest);
      model_scatter(expected, dest_sized, permutation, nullptr, dest_lengths, dest_lengths);
      check_equal(run(b, Op::Permute, dest_sized, permutation, nullptr, nullptr, dest_lengths, {}),
                  expected);

      expected = dest_sized;
      model_scatter(expected, source_sized, into, nullptr, source_lengths, dest_lengths);
      check_equal(run(b, Op::DPermute, source_sized, into, nullptr, &dest_sized, source_lengths,
                      dest_lengths),
                  expected);

      expected = zeros(t, n_dest);
      model_scatter(expected, source_sized, into, &source_flags, source_lengths, dest_lengths);
      check_equal(run(b, Op::FPermute, source_sized, into, &source_flags, nullptr, source_lengths,
                      dest_lengths),
                  expected);

      expected = dest_sized;
      model_scatter(expected, source_sized, into, &source_flags, source_lengths, dest_lengths);
      check_equal(run(b, Op::DFPermute, source_sized, into, &source_flags, &dest_sized,
                      source_lengths, dest_lengths),
                  expected);

      check_equal(
          run(b, Op::BPermute, gather_source, from, nullptr, nullptr, gather_lengths, dest_lengths),
          model_gather(gather_source, from, nullptr, gather_lengths, dest_lengths));
      check_equal(run(b, Op::BFPermute, gather_source, from_where_flagged, &dest_flags, nullptr,
                      gather_lengths, dest_lengths),
                  model_gather(gather_source, from_where_flagged, &dest_flags, gather_lengths,
                               dest_lengths));
    }
  }
}

namespace {
// PERMUTE of one segment: out[idx[j]] = v[j].
HostVector expected_permute(const HostVector& v, const Ints& idx) {
  HostVector out = zeros(v.type, idx.size());
  for (std::size_t j = 0; j < idx.size(); ++j) copy_element(out, static_cast<std::size_t>(idx[j]), v, j);
  return out;
}
}  // namespace

// Shapes a distributed backend moves in runs or ranges (cvl-mpi): a split into two slices and
// their concatenation back, reads of slices and of a short source, and descriptors of more
// singletons than a process gathers whole.
TEST_CASE("permutes: slices, concatenations and many singletons", "[permute][runs]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(5);
  const std::size_t n = 100003, cut = 37001;
  Ints first_part(cut), second_part(n - cut), shifted(n - cut);
  std::iota(first_part.begin(), first_part.end(), 0);
  std::iota(second_part.begin(), second_part.end(), 0);
  std::iota(shifted.begin(), shifted.end(), static_cast<std::int32_t>(cut));
  Ints short_reads(n);
  for (auto& x : short_reads) x = static_cast<std::int32_t>(rng() % 1000);
  const Ints singletons(70001, 1);
  Ints tiny(70001);
  for (auto& x : tiny) x = static_cast<std::int32_t>(rng() % 2);
  const Ints zeros_for_tiny(total_of(tiny), 0);
  const Ints zeros_for_singletons(singletons.size(), 0);
  const Ints n_long{static_cast<std::int32_t>(n)};
  for (Type t : kTypes) {
    INFO(cvl::type_name(t));
    const HostVector v = random_vector(t, n, rng);
    // Slices: the tail, then the head.
    const Ints tail_lengths{static_cast<std::int32_t>(n - cut)}, head_lengths{static_cast<std::int32_t>(cut)};
    check_equal(run(b, Op::BPermute, v, shifted, nullptr, nullptr, n_long, tail_lengths),
                model_gather(v, shifted, nullptr, n_long, tail_lengths));
    check_equal(run(b, Op::BPermute, v, first_part, nullptr, nullptr, n_long, head_lengths),
                model_gather(v, first_part, nullptr, n_long, head_lengths));
    // A short source read at random positions everywhere.
    const HostVector short_source = random_vector(t, 1000, rng);
    check_equal(run(b, Op::BPermute, short_source, short_reads, nullptr, nullptr, {1000}, n_long),
                model_gather(short_source, short_reads, nullptr, {1000}, n_long));
    // Concatenation: the head's elements to the front of a default, the tail's behind them.
    const HostVector head = random_vector(t, cut, rng), tail = random_vector(t, n - cut, rng);
    const HostVector dflt = random_vector(t, n, rng);
    HostVector expected = dflt;
    model_scatter(expected, head, first_part, nullptr, head_lengths, n_long);
    check_equal(run(b, Op::DPermute, head, first_part, nullptr, &dflt, head_lengths, n_long), expected);
    model_scatter(expected, tail, shifted, nullptr, tail_lengths, n_long);
    const HostVector once = run(b, Op::DPermute, head, first_part, nullptr, &dflt, head_lengths, n_long);
    check_equal(run(b, Op::DPermute, tail, shifted, nullptr, &once, tail_lengths, n_long), expected);
    // Half in order, half shuffled: some processes send runs, others each position.
    Ints half_shuffled(n);
    std::iota(half_shuffled.begin(), half_shuffled.end(), 0);
    std::shuffle(half_shuffled.begin() + n / 2, half_shuffled.end(), rng);
    expected = dflt;
    model_scatter(expected, v, half_shuffled, nullptr, n_long, n_long);
    check_equal(run(b, Op::DPermute, v, half_shuffled, nullptr, &dflt, n_long, n_long), expected);
    check_equal(run(b, Op::Permute, v, half_shuffled, nullptr, nullptr, n_long, {}), expected_permute(v, half_shuffled));
    // Singletons: each source element into its own one-element segment, and read back.
    const HostVector some = random_vector(t, total_of(tiny), rng);
    const HostVector ones_dflt = random_vector(t, singletons.size(), rng);
    expected = ones_dflt;
    model_scatter(expected, some, zeros_for_tiny, nullptr, tiny, singletons);
    check_equal(run(b, Op::DPermute, some, zeros_for_tiny, nullptr, &ones_dflt, tiny, singletons), expected);
    const HostVector each = random_vector(t, singletons.size(), rng);
    check_equal(run(b, Op::BPermute, each, zeros_for_tiny, nullptr, nullptr, singletons, tiny),
                model_gather(each, zeros_for_tiny, nullptr, singletons, tiny));
    check_equal(run(b, Op::Permute, each, zeros_for_singletons, nullptr, nullptr, singletons, {}), each);
  }
}

}  // namespace cvl_test

namespace cvl_test {

// A tuple of fields moved by one index (bh): the same index and descriptor handles for field
// after field, then the same index into other descriptors, a flagged scatter by it, and a new
// index in its place. A backend that keeps what it worked out for an index (cvl-mpi) must tell
// these apart.
TEST_CASE("permutes: many fields by one index handle", "[permute][runs]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(11);
  const std::size_t n = 50021;
  Ints shuffled(n), window_reads(n), second(n);
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (std::size_t j = 0; j < n; ++j) window_reads[j] = static_cast<std::int32_t>((j * 7) / 8 + 100);
  std::iota(second.begin(), second.end(), 0);
  std::shuffle(second.begin(), second.end(), rng);
  const Ints n_long{static_cast<std::int32_t>(n)}, halves{static_cast<std::int32_t>(n / 2),
                                                          static_cast<std::int32_t>(n - n / 2)};
  const Bools flags = random_bools(n, 0.5, rng);
  const cvl::Segdes whole = segdes(b, n_long), split = segdes(b, halves);
  const cvl::Vector by = ints(b, shuffled), reads = ints(b, window_reads), flag_vector = bools(b, flags);
  auto permute = [&](Op op, const HostVector& v, const cvl::Vector& idx, const cvl::Segdes& source,
                     const cvl::Segdes& dest, const HostVector* defaults = nullptr,
                     const cvl::Vector* flagged = nullptr) {
    cvl::PermuteOperands o;
    o.values = upload(b, v);
    o.indices = idx;
    if (defaults) o.defaults = upload(b, *defaults);
    if (flagged) o.flags = *flagged;
    o.source_segdes = source;
    if (op != Op::Permute) o.dest_segdes = dest;
    return download(b, b.permute(op, std::move(o)));
  };
  for (int field = 0; field < 3; ++field) {
    for (Type t : kTypes) {
      INFO("field " << field << ", " << cvl::type_name(t));
      const HostVector v = random_vector(t, n, rng), dflt = random_vector(t, n, rng);
      check_equal(permute(Op::Permute, v, by, whole, whole), expected_permute(v, shuffled));
      check_equal(permute(Op::BPermute, v, by, whole, whole), model_gather(v, shuffled, nullptr, n_long, n_long));
      check_equal(permute(Op::BPermute, v, reads, whole, whole),
                  model_gather(v, window_reads, nullptr, n_long, n_long));
      HostVector expected = dflt;
      model_scatter(expected, v, shuffled, &flags, n_long, n_long);
      check_equal(permute(Op::DFPermute, v, by, whole, whole, &dflt, &flag_vector), expected);
    }
  }
  // One index handle over one segment and over two: positions relative to each half in the second.
  Ints within(n);
  for (std::size_t j = 0; j < n; ++j)
    within[j] = static_cast<std::int32_t>(j < n / 2 ? (n / 2 - 1 - j) : (n - 1 - j));
  const cvl::Vector by_within = ints(b, within);
  for (Type t : kTypes) {
    const HostVector v = random_vector(t, n, rng);
    check_equal(permute(Op::BPermute, v, by_within, whole, whole), model_gather(v, within, nullptr, n_long, n_long));
    check_equal(permute(Op::BPermute, v, by_within, split, split), model_gather(v, within, nullptr, halves, halves));
    const HostVector dflt = random_vector(t, n, rng);
    HostVector expected = dflt;
    model_scatter(expected, v, within, nullptr, n_long, n_long);  // later sources win
    check_equal(permute(Op::DPermute, v, by_within, whole, whole, &dflt), expected);
    expected = dflt;
    model_scatter(expected, v, within, nullptr, halves, halves);
    check_equal(permute(Op::DPermute, v, by_within, split, split, &dflt), expected);
  }
  // A new index where the old one was.
  for (Type t : kTypes) {
    const HostVector v = random_vector(t, n, rng);
    {
      const cvl::Vector once = ints(b, shuffled);
      check_equal(permute(Op::Permute, v, once, whole, whole), expected_permute(v, shuffled));
    }
    const cvl::Vector next = ints(b, second);
    check_equal(permute(Op::Permute, v, next, whole, whole), expected_permute(v, second));
  }
}

// bh's pattern: the fields of a short source (its tree) read at one long index, then moved
// together by one index (its split), sliced, and read by an elementwise op. A backend may keep
// such a field as its source and positions and move only the positions (cvl-mpi, cvl-cpu).
TEST_CASE("permutes: fields of a short source read at one index and moved together", "[permute][runs]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(17);
  const std::size_t source_length = 3001, n = 40013, m = 30011;
  Ints reads(n), shuffled(n), other(n), slice(m), reversed(m), crowded(n);
  for (auto& r : reads) r = static_cast<std::int32_t>(rng() % source_length);
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  other = shuffled;
  std::shuffle(other.begin(), other.end(), rng);
  for (std::size_t j = 0; j < m; ++j) slice[j] = static_cast<std::int32_t>(j + 1000);
  for (std::size_t j = 0; j < m; ++j) reversed[j] = static_cast<std::int32_t>(m - 1 - j);
  // Not a permutation: some positions written twice (the later source wins), some never.
  for (std::size_t j = 0; j < n; ++j) crowded[j] = static_cast<std::int32_t>((j * 3) % (n - 7));
  const Ints short_long{static_cast<std::int32_t>(source_length)}, n_long{static_cast<std::int32_t>(n)},
      m_long{static_cast<std::int32_t>(m)};
  const cvl::Segdes source_sd = segdes(b, short_long), whole = segdes(b, n_long), sliced_sd = segdes(b, m_long);
  const cvl::Vector at = ints(b, reads), by = ints(b, shuffled), by_other = ints(b, other), slice_index = ints(b, slice),
                    backwards = ints(b, reversed), crowd = ints(b, crowded);
  auto permute = [&](Op op, const cvl::Vector& v, const cvl::Vector& idx, const cvl::Segdes& source,
                     const cvl::Segdes& dest) {
    cvl::PermuteOperands o;
    o.values = v;
    o.indices = idx;
    o.source_segdes = source;
    if (op != Op::Permute) o.dest_segdes = dest;
    return b.permute(op, std::move(o));
  };
  for (int field = 0; field < 3; ++field) {
    for (Type t : kTypes) {
      INFO("field " << field << ", " << cvl::type_name(t));
      const HostVector source = random_vector(t, source_length, rng);
      const cvl::Vector gathered = permute(Op::BPermute, upload(b, source), at, source_sd, whole);
      {  // freed memory full of positions far outside the source, for the next vector to reuse
        const cvl::Vector junk = ints(b, Ints(n, INT32_MAX));
        std::vector<cvl::Vector> operands{junk, junk};
        download(b, b.elementwise(Op::Add, Type::Int, operands));
      }
      const cvl::Vector crowded_vector = permute(Op::Permute, gathered, crowd, whole, whole);
      const cvl::Vector moved = permute(Op::Permute, gathered, by, whole, whole);
      const cvl::Vector moved_otherwise = permute(Op::Permute, gathered, by_other, whole, whole);
      const cvl::Vector sliced = permute(Op::BPermute, moved, slice_index, whole, sliced_sd);
      const cvl::Vector again = permute(Op::BPermute, sliced, backwards, sliced_sd, sliced_sd);
      const HostVector want_gathered = model_gather(source, reads, nullptr, short_long, n_long);
      const HostVector want_moved = expected_permute(want_gathered, shuffled);
      const HostVector want_sliced = model_gather(want_moved, slice, nullptr, n_long, m_long);
      check_equal(download(b, moved), want_moved);
      check_equal(download(b, moved_otherwise), expected_permute(want_gathered, other));
      check_equal(download(b, sliced), want_sliced);
      check_equal(download(b, again), model_gather(want_sliced, reversed, nullptr, m_long, m_long));
      check_equal(download(b, gathered), want_gathered);
      if (t != Type::Bool) {
        std::vector<cvl::Vector> operands{moved, moved};
        HostVector want_sum = want_moved;
        for (auto& x : want_sum.i) x += x;
        for (auto& x : want_sum.f) x += x;
        check_equal(download(b, b.elementwise(Op::Add, t, operands)), want_sum);
      }
      // The unwritten positions of a PERMUTE that is not a permutation are unspecified: only the
      // written ones are compared.
      const HostVector crowded_out = download(b, crowded_vector);
      HostVector want_crowded = zeros(t, n);
      model_scatter(want_crowded, want_gathered, crowded, nullptr, n_long, n_long);
      std::vector<bool> written(n, false);
      for (auto c : crowded) written[static_cast<std::size_t>(c)] = true;
      check_equal(kept_at(crowded_out, written), kept_at(want_crowded, written));
    }
  }
  // A bad index, reading the short source and moving what was read, is reported where it is.
  Ints bad = reads;
  bad[n - 5] = static_cast<std::int32_t>(source_length);
  const HostVector source = random_vector(Type::Float, source_length, rng);
  CHECK_THROWS_WITH(permute(Op::BPermute, upload(b, source), ints(b, bad), source_sd, whole),
                    "BPERMUTE: index 3001 at position 40008 is outside its segment of length 3001");
  const cvl::Vector gathered = permute(Op::BPermute, upload(b, source), at, source_sd, whole);
  Ints bad_move = shuffled;
  bad_move[n - 3] = -2;
  CHECK_THROWS_WITH(permute(Op::Permute, gathered, ints(b, bad_move), whole, whole),
                    "PERMUTE: index -2 at position 40010 is outside its segment of length 40013");
  check_equal(download(b, gathered), model_gather(source, reads, nullptr, short_long, n_long));
}

}  // namespace cvl_test

namespace cvl_test {

// A PERMUTE whose every index is its element's own offset (a backend may hand the values back
// unmoved), and ones that differ from it in a single pair of neighbours, first, midway or last,
// or in one bad index at the end.
TEST_CASE("permutes: indices that leave every element in place, and ones that nearly do",
          "[permute][runs]") {
  CVL_BACKEND(b);
  std::mt19937_64 rng(11);
  for (Layout layout : kAllLayouts) {
    INFO(layout_name(layout));
    const Ints lengths = make_lengths(layout, 5000, rng);
    Ints in_place, length_at;  // each element's offset and its segment's length
    for (std::int32_t length : lengths)
      for (std::int32_t t = 0; t < length; ++t) {
        in_place.push_back(t);
        length_at.push_back(length);
      }
    // The elements followed by one of their own segment.
    std::vector<std::size_t> pairs;
    for (std::size_t j = 0; j + 1 < in_place.size(); ++j)
      if (in_place[j + 1] == in_place[j] + 1) pairs.push_back(j);
    for (Type t : kTypes) {
      INFO(cvl::type_name(t));
      const HostVector v = random_vector(t, in_place.size(), rng);
      const cvl::Vector values = upload(b, v);
      cvl::PermuteOperands o;
      o.values = values;
      o.indices = ints(b, in_place);
      o.source_segdes = segdes(b, lengths);
      cvl::Vector moved = b.permute(Op::Permute, std::move(o));
      check_equal(download(b, moved), v);
      // The result written over in place leaves the values it came from as they were.
      if (t != Type::Bool) download(b, ew(b, Op::Add, t, std::move(moved), upload(b, v)));
      check_equal(download(b, values), v);

      for (std::size_t at : {std::size_t{0}, pairs.size() / 2, pairs.size() - 1}) {
        if (pairs.empty()) break;
        const std::size_t first = pairs[at];
        Ints swapped = in_place;
        std::swap(swapped[first], swapped[first + 1]);
        HostVector expected = zeros(t, v.size());
        model_scatter(expected, v, swapped, nullptr, lengths, lengths);
        check_equal(run(b, Op::Permute, v, swapped, nullptr, nullptr, lengths, {}), expected);
      }
      if (!in_place.empty()) {
        Ints bad = in_place;
        bad.back() = length_at.back();
        CHECK_THROWS_AS(run(b, Op::Permute, v, bad, nullptr, nullptr, lengths, {}), cvl::Error);
      }
    }
  }
}

}  // namespace cvl_test
