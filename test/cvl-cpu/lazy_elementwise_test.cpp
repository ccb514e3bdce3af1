// Elementwise results computed where first read (lazy_elementwise.hpp): random programs of
// elementwise ops, gathers, scatters and folds on long vectors give the same bits as the ops run one at a time, at one and two
// threads, in exact and fast mode; chains become one expression; a pending result never holds
// more memory than the eager ops would; ops that can fail, and short vectors, run at once; a
// result read by several threads at once is computed once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cvl/errors.hpp"
#include "families/families.hpp"
#include "families/index_runs.hpp"
#include "pending/lazy_elementwise.hpp"
#include "threads/thread_pool.hpp"
#include "test_vectors.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;

constexpr std::size_t kLong = kLazyMin + 1000;

const LazyExpression* pending(const Vector& v) { return pending_expression(v); }

Vector iota(std::size_t n, std::int32_t from = 0) {
  std::vector<std::int32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = from + static_cast<std::int32_t>(i);
  return ints(values);
}

Segdes one_segment(const Context& ctx, std::size_t n) {
  return segdes_from_lengths(ctx.par, ints({static_cast<std::int32_t>(n)}), "MAKE_SEGDES");
}

// BPERMUTE of `values` by `indices`, both over one segment.
Vector gather(const Context& ctx, Vector values, Vector indices) {
  PermuteOperands o;
  o.source_segdes = one_segment(ctx, values.length);
  o.dest_segdes = one_segment(ctx, indices.length);
  o.values = std::move(values);
  o.indices = std::move(indices);
  return permute(ctx, Op::BPermute, std::move(o));
}

// PERMUTE of `values` by `indices` over one segment.
Vector scatter(const Context& ctx, Vector values, Vector indices) {
  PermuteOperands o;
  o.source_segdes = one_segment(ctx, values.length);
  o.values = std::move(values);
  o.indices = std::move(indices);
  return permute(ctx, Op::Permute, std::move(o));
}

// A scan or reduction as the backend runs it: a pending operand folded as it is computed.
Vector fold(const Context& ctx, Op op, Vector v, const Segdes& sd) {
  if (std::optional<Vector> folded = fold_pending(ctx, op, v, sd)) return std::move(*folded);
  return vcode::info(op).family == vcode::Family::Scan ? scan(ctx, op, std::move(v), view(sd))
                                                       : reduce(ctx, op, std::move(v), view(sd));
}

// Copied operands stay shared, moved-in ones are at their last use (a braced list would copy).
template <class... Operands>
Vector ew(const Context& ctx, Op op, Type type, Operands&&... operands) {
  std::vector<Vector> list;
  (list.push_back(std::forward<Operands>(operands)), ...);
  return elementwise(ctx, op, type, list);
}

// ---- random programs ---------------------------------------------------------------------------

// An elementwise op and the types it reads and makes.
struct OpShape {
  Op op;
  Type type;  // the instruction's type
  std::vector<Type> reads;
  Type makes;
};

const std::vector<OpShape>& shapes() {
  static const std::vector<OpShape> all = {
      {Op::Add, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::Sub, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::Mul, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::Or, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::Xor, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::RShift, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::Less, Type::Int, {Type::Int, Type::Int}, Type::Bool},
      {Op::Div, Type::Int, {Type::Int, Type::Int}, Type::Int},  // divisors made non-zero
      {Op::Mod, Type::Int, {Type::Int, Type::Int}, Type::Int},
      {Op::IntToFloat, Type::Int, {Type::Int}, Type::Float},
      {Op::Add, Type::Float, {Type::Float, Type::Float}, Type::Float},
      {Op::Sub, Type::Float, {Type::Float, Type::Float}, Type::Float},
      {Op::Mul, Type::Float, {Type::Float, Type::Float}, Type::Float},
      {Op::Div, Type::Float, {Type::Float, Type::Float}, Type::Float},
      {Op::Sin, Type::Float, {Type::Float}, Type::Float},
      {Op::GreaterEq, Type::Float, {Type::Float, Type::Float}, Type::Bool},
      {Op::Sqrt, Type::Float, {Type::Float}, Type::Float},
      {Op::Exp, Type::Float, {Type::Float}, Type::Float},
      {Op::Log, Type::Float, {Type::Float}, Type::Float},
      {Op::Floor, Type::Float, {Type::Float}, Type::Int},
      {Op::And, Type::Bool, {Type::Bool, Type::Bool}, Type::Bool},
      {Op::Not, Type::Bool, {Type::Bool}, Type::Bool},
      {Op::BoolToInt, Type::Bool, {Type::Bool}, Type::Int},
      {Op::Select, Type::Float, {Type::Bool, Type::Float, Type::Float}, Type::Float},
      {Op::Select, Type::Int, {Type::Bool, Type::Int, Type::Int}, Type::Int},
  };
  return all;
}

// Runs one random program (the same for the same seed) on `ctx` and returns every value it left,
// as bytes. Values are plain vectors, vectors of one value, values per segment (a DIST), and
// results; operands are taken at their last use or copied, results are dropped unread.
std::vector<std::vector<std::byte>> run_program(const Context& ctx, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(random) < p; };
  const std::size_t n = kLong + random() % 5000;
  std::vector<Vector> values;
  std::vector<std::vector<std::byte>> folds;  // the reductions' results, as bytes
  auto leaf = [&](Type type) {
    const int kind = static_cast<int>(random() % 4);
    if (kind == 0) {  // one value
      std::uint64_t bits = type == Type::Float ? std::bit_cast<std::uint64_t>(1.5 + random() % 7)
                           : type == Type::Int ? 1 + random() % 9
                                               : random() % 2;
      return uniform_vector({}, type, n, bits);
    }
    if (kind == 1) {  // one value per segment of about 100
      std::vector<std::int32_t> lengths;
      for (std::size_t left = n; left > 0;) {
        const std::size_t length = std::min<std::size_t>(left, 50 + random() % 100);
        lengths.push_back(static_cast<std::int32_t>(length));
        left -= length;
      }
      const Segdes sd = segdes_from_lengths(ctx.par, ints(lengths), "MAKE_SEGDES");
      Vector per_segment = allocate(type, lengths.size());
      for (std::size_t k = 0; k < lengths.size(); ++k) {
        if (type == Type::Float) elements<double>(per_segment)[k] = 0.25 * (random() % 40);
        if (type == Type::Int) elements<std::int32_t>(per_segment)[k] = 1 + random() % 50;
        if (type == Type::Bool) elements<std::uint8_t>(per_segment)[k] = random() % 2;
      }
      return distribute(ctx, std::move(per_segment), view(sd), sd);
    }
    Vector v = allocate(type, n);
    for (std::size_t i = 0; i < n; ++i) {
      if (type == Type::Float) elements<double>(v)[i] = 0.001 * static_cast<double>(random() % 20000);
      if (type == Type::Int) elements<std::int32_t>(v)[i] = 1 + static_cast<std::int32_t>(random() % 1000);
      if (type == Type::Bool) elements<std::uint8_t>(v)[i] = random() % 2;
    }
    return v;
  };
  // An operand of `type`: an existing value (taken, or copied) or a new leaf.
  auto operand = [&](Type type, bool divisor) -> Vector {
    std::vector<std::size_t> fitting;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i].type == type) fitting.push_back(i);
    if (divisor || fitting.empty() || chance(0.2)) return leaf(type);
    const std::size_t i = fitting[random() % fitting.size()];
    if (chance(0.5)) return values[i];
    Vector taken = std::move(values[i]);
    values.erase(values.begin() + static_cast<std::ptrdiff_t>(i));
    return taken;
  };
  // Gather positions: several gathers may read one index vector (bh's fields), which is
  // checked once.
  Vector positions;
  auto new_positions = [&] {
    std::vector<std::int32_t> at(n);
    for (std::size_t i = 0; i < n; ++i) at[i] = static_cast<std::int32_t>(random() % n);
    positions = ints(at);
  };
  new_positions();
  for (int step = 0; step < 40; ++step) {
    if (!values.empty() && chance(0.1)) {  // a result dropped, maybe never read
      values.erase(values.begin() + static_cast<std::ptrdiff_t>(random() % values.size()));
      continue;
    }
    if (chance(0.1)) {  // a PERMUTE by a permutation (of a pending operand, maybe)
      std::vector<std::int32_t> order(n);
      for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::int32_t>(i);
      std::shuffle(order.begin(), order.end(), random);
      const Type type = std::array{Type::Int, Type::Float, Type::Bool}[random() % 3];
      values.push_back(scatter(ctx, operand(type, false), ints(order)));
      continue;
    }
    if (chance(0.1)) {  // a scan or reduction, over one segment or many (of a pending operand, maybe)
      const Type type = chance(0.5) ? Type::Int : Type::Float;
      const Op op = std::array{Op::PlusReduce, Op::MaxReduce, Op::MulReduce, Op::PlusScan,
                               Op::MinScan}[random() % 5];
      std::vector<std::int32_t> lengths{static_cast<std::int32_t>(n)};
      if (chance(0.5)) {
        lengths.clear();
        for (std::size_t left = n; left > 0;) {
          const std::size_t length = std::min<std::size_t>(left, random() % 300);
          lengths.push_back(static_cast<std::int32_t>(length));
          left -= length;
        }
      }
      const Segdes sd = segdes_from_lengths(ctx.par, ints(lengths), "MAKE_SEGDES");
      Vector result = fold(ctx, op, operand(type, false), sd);
      if (vcode::info(op).family == vcode::Family::Scan) {
        values.push_back(std::move(result));
      } else {
        const std::byte* bytes = elements<std::byte>(result);
        folds.emplace_back(bytes, bytes + result.length * element_size(type));
      }
      continue;
    }
    if (chance(0.15)) {  // a BPERMUTE, by the last positions or new ones
      if (chance(0.4)) new_positions();
      const Type type = std::array{Type::Int, Type::Float, Type::Bool}[random() % 3];
      values.push_back(gather(ctx, operand(type, false), chance(0.7) ? positions
                                                                     : std::move(positions)));
      if (!positions.storage) new_positions();
      continue;
    }
    const OpShape& shape = shapes()[random() % shapes().size()];
    std::vector<Vector> operands;
    for (std::size_t a = 0; a < shape.reads.size(); ++a)
      operands.push_back(operand(shape.reads[a], a == 1 && shape.type == Type::Int &&
                                                     (shape.op == Op::Div || shape.op == Op::Mod)));
    values.push_back(elementwise(ctx, shape.op, shape.type, operands));
    REQUIRE(values.back().type == shape.makes);
  }
  std::vector<std::vector<std::byte>> out = std::move(folds);
  for (const Vector& v : values) {
    const std::byte* bytes = elements<std::byte>(v);
    out.emplace_back(bytes, bytes + v.length * element_size(v.type));
  }
  return out;
}

TEST_CASE("lazy elementwise: random programs give the eager ops' bits", "[cpu][lazy]") {
  for (const bool fast : {false, true}) {
    for (const int threads : {1, 2}) {
      for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        INFO("seed " << seed << ", threads " << threads << (fast ? ", fast math" : ""));
        const auto eager = run_program(context(threads, false, fast), seed);
        const auto lazy = run_program(context(threads, true, fast), seed);
        REQUIRE(lazy.size() == eager.size());
        for (std::size_t i = 0; i < lazy.size(); ++i) CHECK(lazy[i] == eager[i]);
      }
    }
  }
}

// ---- when results wait, and what they hold ------------------------------------------------------

TEST_CASE("lazy elementwise: a chain on long vectors is one expression", "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const Vector x = iota(kLong);  // held by the caller throughout, like a program's stack
  const Vector y = iota(kLong, 5);
  Vector d = ew(ctx, Op::Sub, Type::Int, x, y);
  REQUIRE(pending(d));
  Vector p = ew(ctx, Op::Mul, Type::Int, std::move(d), x);  // d at its last use: taken in
  REQUIRE(pending(p));
  CHECK(pending(p)->definition.nodes.size() == 4);  // $0 $1 (- $0 $1) (* (- ...) $0)
  CHECK(pending(p)->operands.size() == 2);          // x is one operand, read twice
  const std::int32_t* values = elements<std::int32_t>(p);
  CHECK_FALSE(pending(p));
  for (std::size_t i : {std::size_t{0}, std::size_t{7}, kLong - 1})
    CHECK(values[i] == -5 * static_cast<std::int32_t>(i));
}

TEST_CASE("lazy elementwise: an operand something else holds is read, not taken in",
          "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const Vector x = iota(kLong);
  const Vector d = ew(ctx, Op::Add, Type::Int, x, x);
  const Vector e = ew(ctx, Op::Add, Type::Int, d, x);  // d is still held here
  REQUIRE(pending(e));
  CHECK(pending(e)->definition.nodes.size() == 3);
  CHECK(elements<std::int32_t>(e)[10] == 30);
  CHECK_FALSE(pending(d));  // computed as e's operand, and kept for its other holder
  CHECK(elements<std::int32_t>(d)[10] == 20);
}

TEST_CASE("lazy elementwise: a result holding two vectors nothing else holds is computed",
          "[cpu][lazy]") {
  const Context ctx = context(1, true);
  Vector a = iota(kLong), b = iota(kLong, 1);
  const Storage* a_memory = a.storage.get();
  // The eager op would put the sum in a's memory and free b: so does this, at once.
  Vector sum = ew(ctx, Op::Add, Type::Int, std::move(a), std::move(b));
  CHECK_FALSE(pending(sum));
  CHECK(sum.storage.get() == a_memory);
  CHECK(elements<std::int32_t>(sum)[3] == 7);
  // One such vector waits: it is where the result goes.
  const Vector kept = iota(kLong);
  Vector c = iota(kLong, 2);
  const Vector one = ew(ctx, Op::Sub, Type::Int, std::move(c), kept);
  CHECK(pending(one));
}

TEST_CASE("lazy elementwise: expressions stop growing, and so do chains of them",
          "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const Vector x = iota(kLong);
  Vector acc = ew(ctx, Op::Add, Type::Int, x, x);
  for (int i = 0; i < 100; ++i) {
    acc = ew(ctx, Op::Add, Type::Int, std::move(acc), x);
    REQUIRE(pending(acc));
    CHECK(pending(acc)->definition.nodes.size() < kLazyMaxNodes + 3);
    CHECK(pending(acc)->depth == 0);  // a full expression is computed, not left below
  }
  CHECK(elements<std::int32_t>(acc)[3] == 3 * 102);
  // Each result kept (a program's stack): a pending operand stays pending under the next one,
  // up to kLazyMaxDepth levels (computing reads them recursively).
  std::vector<Vector> kept{ew(ctx, Op::Add, Type::Int, x, x)};
  for (int i = 0; i < 100; ++i) {
    kept.push_back(ew(ctx, Op::Add, Type::Int, kept.back(), x));
    REQUIRE(pending(kept.back()));
    CHECK(pending(kept.back())->depth < kLazyMaxDepth);
  }
  CHECK(elements<std::int32_t>(kept.back())[3] == 3 * 102);
}

TEST_CASE("lazy elementwise: short vectors and ops that can fail run at once", "[cpu][lazy]") {
  const Context ctx = context(1, true);
  CHECK_FALSE(pending(ew(ctx, Op::Add, Type::Int, iota(kLazyMin - 1), iota(kLazyMin - 1))));
  const Vector x = iota(kLong);
  CHECK_FALSE(pending(ew(ctx, Op::Div, Type::Int, x, iota(kLong, 1))));
  CHECK_FALSE(pending(ew(ctx, Op::Mod, Type::Int, x, iota(kLong, 1))));
  // The division by zero is the division's error, raised where it runs.
  CHECK_THROWS_AS(ew(ctx, Op::Div, Type::Int, x, iota(kLong)), cvl::Error);
  CHECK(pending(ew(ctx, Op::Div, Type::Float, ew(ctx, Op::IntToFloat, Type::Int, x),
                   ew(ctx, Op::IntToFloat, Type::Int, x))));
}

TEST_CASE("lazy gather: a gathered vector feeding elementwise ops is never stored",
          "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const Vector x = iota(kLong, 100);
  const Vector source = iota(kShortGatherSource + 1, 100);  // not short: x's elements and more
  std::vector<std::int32_t> reversed(kLong);
  for (std::size_t i = 0; i < kLong; ++i) reversed[i] = static_cast<std::int32_t>(kLong - 1 - i);
  const Vector at = ints(reversed);
  // The first gather by an index runs at once, checking it; later ones by it wait.
  CHECK_FALSE(pending(gather(ctx, source, at)));
  Vector g = gather(ctx, source, at);
  REQUIRE(pending(g));
  CHECK(pending(g)->definition.root().kind == vcode::SuperOpNode::Kind::Gather);
  // Taken into the sum: one expression that reads x at the positions, nothing stored between.
  Vector sum = ew(ctx, Op::Add, Type::Int, std::move(g), x);
  REQUIRE(pending(sum));
  CHECK(pending(sum)->definition.nodes.size() == 5);  // $0 $1 (GATHER ...) $0 (+ ...)
  const std::int32_t* values = elements<std::int32_t>(sum);
  for (std::size_t i : {std::size_t{0}, std::size_t{7}, kLong - 1})
    CHECK(values[i] == static_cast<std::int32_t>(kLong - 1 - i + 100 + i + 100));
  // A source of one value gives one value; a descriptor of several segments runs at once.
  CHECK(uniform_bits(gather(ctx, uniform_vector({}, Type::Int, kLong, 7), at)) == 7u);
  PermuteOperands two;
  two.values = x;
  two.indices = iota(kLong, 0);
  two.source_segdes = two.dest_segdes = segdes_from_lengths(
      ctx.par, ints({static_cast<std::int32_t>(kLong - 10), 10}), "MAKE_SEGDES");
  for (std::size_t i = kLong - 10; i < kLong; ++i)
    elements<std::int32_t>(two.indices)[i] = static_cast<std::int32_t>(i - (kLong - 10));
  const Vector segmented = permute(ctx, Op::BPermute, std::move(two));
  CHECK_FALSE(pending(segmented));
  CHECK(elements<std::int32_t>(segmented)[kLong - 1] == static_cast<std::int32_t>(kLong - 1 + 100));
}

TEST_CASE("lazy scatter: a PERMUTE of a pending result gives the op's values and errors",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const Vector x = iota(kLong);
  std::vector<std::int32_t> to(kLong);
  for (std::size_t i = 0; i < kLong; ++i) to[i] = static_cast<std::int32_t>((i * 7919) % kLong);
  to[5] = to[9];  // two sources, one target (not NESL, but valid VCODE): the higher one wins
  const Vector at = ints(to);
  auto scattered = [&](const Context& ctx) {
    Vector sum = ew(ctx, Op::Add, Type::Int, x, x);
    CHECK(static_cast<bool>(pending(sum)) == ctx.lazy);
    const Vector out = scatter(ctx, std::move(sum), at);
    CHECK_FALSE(pending(out));
    const std::int32_t* v = elements<std::int32_t>(out);
    return std::vector<std::int32_t>(v, v + kLong);
  };
  std::vector<std::int32_t> streamed = scattered(lazy), one_at_a_time = scattered(eager);
  const auto unwritten = static_cast<std::size_t>((5 * 7919) % kLong);  // source 5's old target
  streamed[unwritten] = one_at_a_time[unwritten] = 0;
  CHECK(streamed == one_at_a_time);
  CHECK(streamed[static_cast<std::size_t>(to[9])] == 18);
  // A bad index is PERMUTE's error, the first in source order, as the op one at a time gives.
  std::vector<std::int32_t> bad = to;
  bad[100] = static_cast<std::int32_t>(kLong);
  bad[200] = -1;
  std::string lazy_error, eager_error;
  try {
    scatter(lazy, ew(lazy, Op::Add, Type::Int, x, x), ints(bad));
  } catch (const cvl::Error& e) {
    lazy_error = e.what();
  }
  try {
    scatter(eager, ew(eager, Op::Add, Type::Int, x, x), ints(bad));
  } catch (const cvl::Error& e) {
    eager_error = e.what();
  }
  CHECK_THAT(lazy_error, Catch::Contains("PERMUTE") && Catch::Contains("position 100"));
  CHECK(lazy_error == eager_error);
}

// A node of a definition written out by hand.
vcode::SuperOpNode node(vcode::SuperOpNode::Kind kind, Op op, vcode::TypeKeyword type,
                        std::uint8_t arity, std::array<std::uint32_t, 3> args,
                        std::uint32_t operand = 0) {
  vcode::SuperOpNode n;
  n.kind = kind;
  n.op = op;
  n.type = n.result = type;
  n.arity = arity;
  for (int a = 0; a < 3; ++a) n.args[a] = args[a];
  n.operand = operand;
  return n;
}

// $k, an INT operand; an INT op of nodes a and b; a definition over $0 and $1, both INT.
vcode::SuperOpNode int_operand(std::uint32_t k) {
  return node(vcode::SuperOpNode::Kind::Operand, Op::Add, vcode::TypeKeyword::Int, 0, {}, k);
}
vcode::SuperOpNode int_op(Op op, std::uint32_t a, std::uint32_t b) {
  return node(vcode::SuperOpNode::Kind::Elementwise, op, vcode::TypeKeyword::Int, 2, {a, b});
}
vcode::SuperOp two_int_operands(std::vector<vcode::SuperOpNode> nodes) {
  vcode::SuperOp op;
  op.operands = {vcode::TypeKeyword::Int, vcode::TypeKeyword::Int};
  op.nodes = std::move(nodes);
  return op;
}

TEST_CASE("FUSED with outputs: each output node's values and the root's, in one pass",
          "[cpu][lazy]") {
  // $0 $1 (* $0 $1) (- $0 $1) (+ (* $0 $1) $1): the product is also an output, the difference
  // (read by nothing) another.
  const vcode::SuperOp op = two_int_operands({int_operand(0), int_operand(1), int_op(Op::Mul, 0, 1),
                                        int_op(Op::Sub, 0, 1), int_op(Op::Add, 2, 1)});
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    const Context ctx = context(threads, true);
    const std::size_t n = kLong;
    std::vector<FusedOperand> operands(2);
    operands[0].vector = iota(n, 3);
    operands[1].vector = iota(n, -40);
    const auto plan = prepare_fused(ctx, op, {2, 3});
    CHECK(plan->analysis.roles[3] == vcode::NodeRole::Element);
    const std::vector<Vector> out = fused_outputs(ctx, *plan, operands, n);
    REQUIRE(out.size() == 3);
    for (std::size_t i = 0; i < n; i += 37) {
      INFO("element " << i);
      const auto x = static_cast<std::int32_t>(i) + 3, y = static_cast<std::int32_t>(i) - 40;
      CHECK(elements<std::int32_t>(out[0])[i] == x * y);
      CHECK(elements<std::int32_t>(out[1])[i] == x - y);
      CHECK(elements<std::int32_t>(out[2])[i] == x * y + y);
    }
  }
}

// A definition as the lazy results make them, written out: the gather's positions are computed
// first, then another node, then the gather: the positions must keep their block buffer.
TEST_CASE("lazy gather: the positions keep their buffer until the gather has read them",
          "[cpu][lazy]") {
  using Kind = vcode::SuperOpNode::Kind;
  using vcode::TypeKeyword;
  vcode::SuperOp op;
  op.operands = {TypeKeyword::Int, TypeKeyword::Int, TypeKeyword::Int};  // source, at, other
  op.nodes = {
      node(Kind::Operand, Op::Add, TypeKeyword::Int, 0, {}, 1),                      // 0: $1
      node(Kind::Elementwise, Op::Add, TypeKeyword::Int, 2, {0, 0}),                 // 1: at + at
      node(Kind::Operand, Op::Add, TypeKeyword::Int, 0, {}, 2),                      // 2: $2
      node(Kind::Elementwise, Op::Mul, TypeKeyword::Int, 2, {2, 2}),                 // 3: o * o
      node(Kind::Operand, Op::Add, TypeKeyword::Int, 0, {}, 0),                      // 4: $0
      node(Kind::Gather, Op::BPermute, TypeKeyword::Int, 2, {4, 1}),                 // 5
      node(Kind::Elementwise, Op::Sub, TypeKeyword::Int, 2, {5, 3}),                 // 6
  };
  const Context ctx = context(1, false);
  const std::size_t n = 1000;
  std::vector<FusedOperand> operands(3);
  operands[0].vector = iota(2 * n, 7);
  operands[1].vector = iota(n);
  operands[2].vector = iota(n, 1);
  const Vector out = fused(ctx, *prepare_fused(ctx, op), operands, n);
  const std::int32_t* values = elements<std::int32_t>(out);
  for (std::size_t i = 0; i < n; ++i) {
    INFO("element " << i);
    const auto j = static_cast<std::int32_t>(i);
    REQUIRE(values[i] == (2 * j + 7) - (j + 1) * (j + 1));
  }
}

TEST_CASE("lazy gather: only by an index a BPERMUTE found good for as long a source",
          "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const std::size_t length = kShortGatherSource + 1;  // not short (short ones: below)
  const Vector x = iota(length);
  Vector at = iota(kLong, 1);
  elements<std::int32_t>(at)[kLong - 1] = static_cast<std::int32_t>(length);  // past the end
  CHECK_THROWS_WITH(gather(ctx, x, at),
                    Catch::Contains("BPERMUTE") && Catch::Contains("outside its segment"));
  CHECK(indices_below(at) == std::nullopt);  // a failed gather records nothing
  elements<std::int32_t>(at)[kLong - 1] = -1;  // negative: as bad, and still not pending
  CHECK_THROWS_AS(gather(ctx, x, at), cvl::Error);
  elements<std::int32_t>(at)[kLong - 1] = 0;
  CHECK_FALSE(pending(gather(ctx, x, at)));
  CHECK(indices_below(at) == static_cast<std::uint32_t>(length));
  const Vector good = gather(ctx, x, at);
  CHECK(pending(good));
  // A shorter source is checked again, by the gather itself.
  CHECK_THROWS_AS(gather(ctx, iota(kLong - 5), at), cvl::Error);
  CHECK(elements<std::int32_t>(good)[5] == 6);  // computed: it no longer holds the index
  // Reused in place by an op, the index forgets what it was known to be.
  const Storage* memory = at.storage.get();
  Vector reused = ew(ctx, Op::Div, Type::Int, std::move(at), iota(kLong, 1));  // runs at once
  REQUIRE(reused.storage.get() == memory);
  CHECK(indices_below(reused) == std::nullopt);
  // Reused as the gather's own result, likewise.
  Vector last = iota(kLong);
  const Vector by_last = gather(ctx, x, std::move(last));
  CHECK(indices_below(by_last) == std::nullopt);
}

// ---- gathers of short sources (gather_composition.hpp) ----------------------------------------

// Positions in [0, bound): a scrambled order, like bh's moves of its interactions.
Vector scrambled(std::size_t n, std::size_t bound, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::int32_t> at(n);
  for (std::size_t i = 0; i < n; ++i) at[i] = static_cast<std::int32_t>(random() % bound);
  return ints(at);
}

std::vector<std::int32_t> int_values(const Vector& v) {
  const std::int32_t* e = elements<std::int32_t>(v);
  return {e, e + v.length};
}

// The message of the cvl::Error `run` throws ("" when none).
template <class Run>
std::string error_of(Run&& run) {
  try {
    run();
  } catch (const cvl::Error& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("short gathers: a first gather of a short source waits, its index checked",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const Vector bodies = iota(1000, 7);
  const Vector at = scrambled(kLong, 1000, 1);
  const Vector g = gather(lazy, bodies, at);
  REQUIRE(short_gather_of(g));
  CHECK(short_gather_of(g)->source.storage == bodies.storage);
  CHECK(indices_below(at) == 1000u);
  CHECK(int_values(g) == int_values(gather(eager, bodies, at)));
  // A bad index is the gather's own error, as the op one at a time reports it.
  Vector bad = scrambled(kLong, 1000, 2);
  elements<std::int32_t>(bad)[300] = 1000;
  const std::string lazy_error = error_of([&] { gather(lazy, bodies, bad); });
  CHECK_THAT(lazy_error, Catch::Contains("BPERMUTE") && Catch::Contains("position 300"));
  CHECK(lazy_error == error_of([&] { gather(eager, bodies, bad); }));
  CHECK(indices_below(bad) == std::nullopt);
}

TEST_CASE("short gathers: fields moved by one index share its composed positions",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const std::size_t bodies = 2000, interactions = kLong + 500;
  const Vector x = iota(bodies, 10), y = iota(bodies, 50000);
  const Vector body_of = scrambled(interactions, bodies, 3);  // the body of each interaction
  const Vector gx = gather(lazy, x, body_of), gy = gather(lazy, y, body_of);
  // The next level: a gather and a permute of both fields by one index each.
  const Vector kept = scrambled(kLong, interactions, 4);
  std::vector<std::int32_t> order(interactions);
  for (std::size_t i = 0; i < interactions; ++i) order[i] = static_cast<std::int32_t>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
  const Vector to = ints(order);
  const Vector hx = gather(lazy, gx, kept), hy = gather(lazy, gy, kept);
  const Vector sx = scatter(lazy, gx, to), sy = scatter(lazy, gy, to);
  for (const Vector* v : {&hx, &hy, &sx, &sy}) REQUIRE(short_gather_of(*v));
  CHECK(short_gather_of(hx)->source.storage == x.storage);
  CHECK(short_gather_of(hy)->source.storage == y.storage);
  CHECK(short_gather_of(hx)->positions.storage == short_gather_of(hy)->positions.storage);
  CHECK(short_gather_of(sx)->positions.storage == short_gather_of(sy)->positions.storage);
  CHECK(short_gather_of(hx)->positions.storage != short_gather_of(sx)->positions.storage);
  CHECK(pending(gx));  // the moved fields were never computed
  CHECK(pending(gy));
  // An elementwise op reads a field at its positions, and leaves it pending for its holders.
  const Vector sum = ew(lazy, Op::Add, Type::Int, hx, hy);
  elements<std::int32_t>(sum);
  CHECK(pending(hx));
  CHECK(pending(hy));
  // The values are the ops' one at a time.
  const Vector ex = gather(eager, x, body_of), ey = gather(eager, y, body_of);
  CHECK(int_values(hx) == int_values(gather(eager, ex, kept)));
  CHECK(int_values(hy) == int_values(gather(eager, ey, kept)));
  CHECK(int_values(sx) == int_values(scatter(eager, ex, to)));
  CHECK(int_values(sy) == int_values(scatter(eager, ey, to)));
  CHECK(int_values(sum)[17] == int_values(hx)[17] + int_values(hy)[17]);
}

TEST_CASE("short gathers: a moved field's errors are the op's own", "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const Vector x = iota(3000, 1);
  const Vector body_of = scrambled(kLong, 3000, 6);
  const Vector gx = gather(lazy, x, body_of), ex = gather(eager, x, body_of);
  REQUIRE(short_gather_of(gx));
  Vector far = scrambled(kLong, kLong, 7);
  elements<std::int32_t>(far)[1234] = static_cast<std::int32_t>(kLong);
  const std::string gathered = error_of([&] { gather(lazy, gx, far); });
  CHECK_THAT(gathered, Catch::Contains("BPERMUTE") && Catch::Contains("position 1234"));
  CHECK(gathered == error_of([&] { gather(eager, ex, far); }));
  elements<std::int32_t>(far)[1234] = -2;
  const std::string scattered = error_of([&] { scatter(lazy, gx, far); });
  CHECK_THAT(scattered, Catch::Contains("PERMUTE") && Catch::Contains("position 1234"));
  CHECK(scattered == error_of([&] { scatter(eager, ex, far); }));
}

TEST_CASE("short gathers: an index reused in place is not taken for its old values",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const Vector x = iota(500, 3), y = iota(500, 900);
  const Vector body_of = scrambled(kLong, 500, 8);
  const Vector gx = gather(lazy, x, body_of), gy = gather(lazy, y, body_of);
  Vector q = scrambled(kLong, kLong, 9);
  const Storage* memory = q.storage.get();
  const Vector hx = gather(lazy, gx, q);
  // q's memory now holds q % 7 (an INT % runs at once, into its operand at its last use).
  const Vector q7 = ew(lazy, Op::Mod, Type::Int, std::move(q), uniform_vector({}, Type::Int, kLong, 7));
  REQUIRE(q7.storage.get() == memory);
  const Vector hy = gather(lazy, gy, q7);
  REQUIRE(short_gather_of(hy));
  CHECK(short_gather_of(hy)->positions.storage != short_gather_of(hx)->positions.storage);
  CHECK(int_values(hy) == int_values(gather(eager, gather(eager, y, body_of), q7)));
}

TEST_CASE("short gathers: a FUSED call reads its gathered operands at their positions",
          "[cpu][lazy]") {
  // ($0 * $0) - $1 over INT: $0 read twice, $1 once.
  const vcode::SuperOp op = two_int_operands(
      {int_operand(0), int_operand(0), int_op(Op::Mul, 0, 1), int_operand(1), int_op(Op::Sub, 2, 3)});
  const Context lazy = context(1, true);
  const Vector x = iota(700, -300), y = iota(900, 5);
  const Vector gx = gather(lazy, x, scrambled(kLong, 700, 10));
  const Vector gy = gather(lazy, y, scrambled(kLong, 900, 11));
  REQUIRE(short_gather_of(gx));
  REQUIRE(short_gather_of(gy));
  const auto plan = prepare_fused(lazy, op);
  std::vector<FusedOperand> operands(2);
  operands[0].vector = gx;
  operands[1].vector = gy;
  const Vector out = fused_through_gathers(lazy, *plan, operands, kLong).value();
  CHECK(pending(gx));  // read at their positions, not computed
  CHECK(pending(gy));
  std::vector<FusedOperand> stored(2);
  stored[0].vector = gx;
  stored[1].vector = gy;
  CHECK(int_values(out) == int_values(fused(lazy, *plan, stored, kLong)));
  // No gathered operand: nothing to rewrite.
  std::vector<FusedOperand> plain(2);
  plain[0].vector = iota(kLong);
  plain[1].vector = iota(kLong);
  CHECK_FALSE(fused_through_gathers(lazy, *plan, plain, kLong));
}

TEST_CASE("lazy FUSED: an elementwise superoperator waits like the ops it fuses", "[cpu][lazy]") {
  using Kind = vcode::SuperOpNode::Kind;
  using vcode::TypeKeyword;
  // ($0 - $1) * $0 over INT, and the same with / for *.
  const vcode::SuperOp op =
      two_int_operands({int_operand(0), int_operand(1), int_op(Op::Sub, 0, 1), int_op(Op::Mul, 2, 0)});
  const Context lazy = context(1, true);
  const auto plan = prepare_fused(lazy, op);
  const Vector x = iota(kLong, 3);
  auto operands = [&](Vector a, Vector b) {
    std::vector<FusedOperand> o(2);
    o[0].vector = std::move(a);
    o[1].vector = std::move(b);
    return o;
  };
  std::vector<FusedOperand> first = operands(x, iota(kLong));
  const Vector waiting = lazy_fused(lazy, *plan, first, kLong).value();
  REQUIRE(pending(waiting));
  // An elementwise op on it takes it in, as it takes in the ops' own pending results.
  const Vector sum = ew(lazy, Op::Add, Type::Int, waiting, x);
  std::vector<FusedOperand> again = operands(x, iota(kLong));
  const std::vector<std::int32_t> expected = int_values(fused(lazy, *plan, again, kLong));
  CHECK(int_values(waiting) == expected);
  CHECK(int_values(sum)[9] == expected[9] + 12);
  // A division runs at once (its error is the call's), and so do short calls.
  vcode::SuperOp divides = op;  // a copy to change
  divides.nodes[3].op = Op::Div;
  std::vector<FusedOperand> by_zero = operands(x, iota(kLong));
  CHECK_FALSE(lazy_fused(lazy, *prepare_fused(lazy, divides), by_zero, kLong));
  std::vector<FusedOperand> short_ones = operands(iota(100), iota(100));
  CHECK_FALSE(lazy_fused(lazy, *plan, short_ones, 100));
  // A DIST of a constant: one value, left to fused() (which writes it only if read as memory).
  vcode::SuperOp constant;
  constant.operands = {TypeKeyword::Segdes};
  constant.nodes = {
      node(Kind::Operand, Op::Add, TypeKeyword::Segdes, 0, {}, 0),
      node(Kind::Constant, Op::Add, TypeKeyword::Int, 0, {}),
      node(Kind::Dist, Op::Dist, TypeKeyword::Int, 2, {1, 0}),
  };
  constant.nodes[0].result = TypeKeyword::Segdes;
  std::vector<FusedOperand> described(1);
  described[0].segdes = one_segment(lazy, kLong);
  CHECK_FALSE(lazy_fused(lazy, *prepare_fused(lazy, constant), described, kLong));
  // An INDEX of constants over segments waits, as the op INDEX does, with fused()'s values.
  vcode::SuperOp counting = constant;  // a copy to change: INDEX (CONST INT 3) (CONST INT 2) $0
  counting.nodes = {constant.nodes[0], constant.nodes[1], constant.nodes[1],
                    node(Kind::Index, Op::Index, TypeKeyword::Int, 3, {1, 2, 0})};
  counting.nodes[1].int_value = 3;
  counting.nodes[2].int_value = 2;
  const auto index_plan = prepare_fused(lazy, counting);
  std::vector<FusedOperand> segments(1);
  segments[0].segdes = segdes_from_lengths(lazy.par, ints({5, static_cast<std::int32_t>(kLong)}),
                                           "MAKE_SEGDES");
  const Vector positions = lazy_fused(lazy, *index_plan, segments, kLong + 5).value();
  REQUIRE(pending(positions));
  const std::vector<std::int32_t> counted = int_values(fused(lazy, *index_plan, segments, kLong + 5));
  CHECK(int_values(positions) == counted);
  CHECK(counted[4] == 11);
  CHECK(counted[6] == 5);
}

TEST_CASE("lazy FUSED: a fold or a division runs at once, its described operands read as the ops' are",
          "[cpu][lazy]") {
  using Kind = vcode::SuperOpNode::Kind;
  using vcode::TypeKeyword;
  const Context lazy = context(1, true);
  // +_REDUCE INT ($0 * $1) by $2, and ($0 - $1) / $1.
  vcode::SuperOp folds;
  folds.operands = {TypeKeyword::Int, TypeKeyword::Int, TypeKeyword::Segdes};
  folds.nodes = {int_operand(0), int_operand(1), int_op(Op::Mul, 0, 1),
                 node(Kind::Operand, Op::Add, TypeKeyword::Segdes, 0, {}, 2),
                 node(Kind::Reduce, Op::PlusReduce, TypeKeyword::Int, 2, {2, 3})};
  folds.nodes[3].result = TypeKeyword::Segdes;
  const vcode::SuperOp divides =
      two_int_operands({int_operand(0), int_operand(1), int_op(Op::Sub, 0, 1), int_op(Op::Div, 2, 1)});
  const Segdes sd = segdes_from_lengths(lazy.par, ints({7, static_cast<std::int32_t>(kLong), 0, 300}),
                                        "MAKE_SEGDES");
  const std::size_t n = view(sd).total;
  // The second operand as memory, as one value, or as a pending result nothing else holds (over
  // an operand held here, so that it waits).
  std::vector<Vector> held;
  auto second = [&](int form, std::int32_t value) {
    if (form == 0) return ints(std::vector<std::int32_t>(n, value));
    if (form == 1) return uniform_vector({}, Type::Int, n, static_cast<std::uint32_t>(value));
    held.push_back(ints(std::vector<std::int32_t>(n, value - 1)));
    Vector sum = ew(lazy, Op::Add, Type::Int, held.back(), uniform_vector({}, Type::Int, n, 1));
    CHECK(pending(sum));
    return sum;
  };
  auto call = [&](const vcode::SuperOp& definition, int form, std::int32_t value) {
    std::vector<FusedOperand> o(definition.operands.size());
    o[0].vector = iota(n, -40);
    o[1].vector = second(form, value);
    if (o.size() == 3) o[2].segdes = sd;
    const auto plan = prepare_fused(lazy, definition);
    if (form != 0) {  // built as the ops' operands are, and computed: nothing pending
      std::optional<Vector> out = lazy_fused(lazy, *plan, o, n);
      REQUIRE(out);
      CHECK_FALSE(pending(*out));
      return int_values(*out);
    }
    CHECK_FALSE(lazy_fused(lazy, *plan, o, n));  // left to fused()
    return int_values(fused(lazy, *plan, o, n));
  };
  for (int form : {1, 2}) {
    INFO((form == 1 ? "one value" : "a pending result"));
    CHECK(call(folds, form, 3) == call(folds, 0, 3));
    CHECK(call(divides, form, 4) == call(divides, 0, 4));
    const std::vector<std::int32_t> sums = call(folds, form, 3);
    REQUIRE(sums.size() == 4);
    CHECK(sums[0] == 3 * (-40 - 39 - 38 - 37 - 36 - 35 - 34));
    CHECK(sums[2] == 0);
    // Division by zero: the call's own error, as fused() gives it.
    CHECK(error_of([&] { call(divides, form, 0); }) == error_of([&] { call(divides, 0, 0); }));
  }
}

TEST_CASE("lazy FUSED: a gathered operand held elsewhere is computed once, else read where used",
          "[cpu][lazy]") {
  using Kind = vcode::SuperOpNode::Kind;
  // ($0 - $1) * $0 over INT.
  const vcode::SuperOp op =
      two_int_operands({int_operand(0), int_operand(1), int_op(Op::Sub, 0, 1), int_op(Op::Mul, 2, 0)});
  const Context lazy = context(1, true);
  const auto plan = prepare_fused(lazy, op);
  const Vector x = iota(700, -300);
  auto has_gather = [](const Vector& v) {
    const std::vector<vcode::SuperOpNode>& nodes = pending(v)->definition.nodes;
    return std::any_of(nodes.begin(), nodes.end(),
                       [](const vcode::SuperOpNode& n) { return n.kind == Kind::Gather; });
  };
  std::vector<FusedOperand> eager_operands(2);
  eager_operands[0].vector = gather(context(1, false), x, scrambled(kLong, 700, 10));
  eager_operands[1].vector = iota(kLong);
  const std::vector<std::int32_t> expected = int_values(fused(lazy, *plan, eager_operands, kLong));

  // Held by another FUSED call too (fcode-opt repeats a shared subexpression in each call).
  const Vector shared = gather(lazy, x, scrambled(kLong, 700, 10));
  REQUIRE(short_gather_of(shared));
  std::vector<FusedOperand> first(2);
  first[0].vector = shared;
  first[1].vector = iota(kLong);
  const Vector once = lazy_fused(lazy, *plan, first, kLong).value();
  REQUIRE(pending(once));
  CHECK_FALSE(has_gather(once));
  CHECK(int_values(once) == expected);
  CHECK_FALSE(pending(shared));  // computed once, for every holder

  // Held nowhere else: read at its positions, never stored.
  const Vector counting = iota(kLong);  // held here: the pending result holds one vector only
  std::vector<FusedOperand> second(2);
  second[0].vector = gather(lazy, x, scrambled(kLong, 700, 10));
  second[1].vector = counting;
  const Vector through = lazy_fused(lazy, *plan, second, kLong).value();
  REQUIRE(pending(through));
  CHECK(has_gather(through));
  CHECK(int_values(through) == expected);
}

// fcode-opt writes a value read twice as two copies of its subtree (black-scholes's CND repeats
// |d| seven times); a pending expression holds each computation once, so the node limit counts
// work and such a definition still waits.
TEST_CASE("lazy FUSED: a subtree repeated in a definition is one node of the pending result",
          "[cpu][lazy]") {
  // f0 = $0 - $1, f(k+1) = f(k) + f(k), each f(k) written out twice: 2^8 - 1 elementwise nodes.
  std::vector<vcode::SuperOpNode> nodes;
  auto tree = [&](auto&& self, int level) -> std::uint32_t {
    if (level == 0) {
      nodes.push_back(int_operand(0));
      nodes.push_back(int_operand(1));
      const auto a = static_cast<std::uint32_t>(nodes.size() - 2);
      nodes.push_back(int_op(Op::Sub, a, a + 1));
    } else {
      const std::uint32_t left = self(self, level - 1);
      const std::uint32_t right = self(self, level - 1);
      nodes.push_back(int_op(Op::Add, left, right));
    }
    return static_cast<std::uint32_t>(nodes.size() - 1);
  };
  tree(tree, 7);
  const vcode::SuperOp op = two_int_operands(nodes);
  REQUIRE(op.nodes.size() > kLazyMaxNodes);
  const Context lazy = context(1, true);
  const auto plan = prepare_fused(lazy, op);
  CHECK(plan->analysis.distinct_nodes == 3 + 7);
  const Vector x = iota(kLong, 50), y = iota(kLong, 7);
  auto operands = [&] {
    std::vector<FusedOperand> o(2);
    o[0].vector = x;
    o[1].vector = y;
    return o;
  };
  std::vector<FusedOperand> first = operands();
  const Vector waiting = lazy_fused(lazy, *plan, first, kLong).value();
  REQUIRE(pending(waiting));
  CHECK(pending(waiting)->definition.nodes.size() == 3 + 7);
  // Two such results over the same vectors, held only by their sum: one copy of their nodes.
  std::vector<FusedOperand> second = operands(), third = operands();
  Vector twice = lazy_fused(lazy, *plan, second, kLong).value();
  const Vector sum = ew(lazy, Op::Add, Type::Int, std::move(twice),
                        lazy_fused(lazy, *plan, third, kLong).value());
  REQUIRE(pending(sum));
  CHECK(pending(sum)->definition.nodes.size() == 3 + 7 + 1);
  std::vector<FusedOperand> again = operands();
  const std::vector<std::int32_t> expected = int_values(fused(lazy, *plan, again, kLong));
  CHECK(expected[0] == 43 * 128);
  CHECK(int_values(waiting) == expected);
  CHECK(int_values(sum)[5] == 2 * expected[5]);
}

TEST_CASE("lazy elementwise: a result read by several threads at once is computed once",
          "[cpu][lazy]") {
  const Context ctx = context(2, true);
  const Vector x = iota(kLong);
  const Vector r = ew(ctx, Op::Mul, Type::Int, ew(ctx, Op::Add, Type::Int, x, x), x);
  REQUIRE(pending(r));
  std::vector<const std::int32_t*> seen(8);
  run_tasks(3, seen.size(), [&](std::size_t i) { seen[i] = elements<std::int32_t>(r); });
  for (const std::int32_t* p : seen) CHECK(p == seen[0]);
  CHECK(seen[0][9] == 162);
}

}  // namespace
}  // namespace cvl::cpu

namespace cvl::cpu {
namespace {

TEST_CASE("lazy elementwise: compute_pending computes every pending result still held",
          "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const Vector x = iota(kLong);
  const Vector a = ew(ctx, Op::Add, Type::Int, x, x);
  const Vector b = ew(ctx, Op::Mul, Type::Int, ew(ctx, Op::Sub, Type::Int, x, x), x);
  REQUIRE(pending(a));
  REQUIRE(pending(b));
  compute_pending();
  CHECK_FALSE(pending(a));
  CHECK_FALSE(pending(b));
  CHECK(elements<std::int32_t>(a)[4] == 8);
  CHECK(elements<std::int32_t>(b)[4] == 0);
}

}  // namespace
}  // namespace cvl::cpu

namespace cvl::cpu {
namespace {

// INDEX over `lengths`, segment k counting from starts[k] by strides[k].
Vector index_over(const Context& ctx, const Segdes& sd, std::vector<std::int32_t> starts,
                  std::vector<std::int32_t> strides) {
  return index(ctx, ints(std::move(starts)), ints(std::move(strides)), view(sd), sd);
}

Segdes segments_of(const Context& ctx, const std::vector<std::int32_t>& lengths) {
  return segdes_from_lengths(ctx.par, ints(lengths), "MAKE_SEGDES");
}

// `op` by an INDEX from 0 by 1 over the segments `sd` (source and destination): the result is
// the values themselves, their memory untouched.
void check_untouched(const Context& ctx, Op op, const Segdes& sd) {
  const std::size_t segments = view(sd).segments, total = view(sd).total;
  PermuteOperands o;
  o.values = iota(total, 3);
  o.indices = index_over(ctx, sd, std::vector<std::int32_t>(segments, 0),
                         std::vector<std::int32_t>(segments, 1));
  REQUIRE(pending(o.indices));
  o.source_segdes = o.dest_segdes = sd;
  const Storage* kept = o.values.storage.get();
  const Vector same = permute(ctx, op, std::move(o));
  CHECK(same.storage.get() == kept);
  CHECK(values_of<std::int32_t>(same) == values_of<std::int32_t>(iota(total, 3)));
}

TEST_CASE("pending indices: permutes by an INDEX, or an expression over one, read it where used",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  // Empty segments, short ones, and long ones that cross many of the blocks the indices are read
  // in, one of them longer than kLazyMin on its own.
  const std::vector<std::int32_t> lengths = {0, 3, 700, 1, 0, 5000, 17, kLazyMin + 5, 2, 300};
  const std::size_t segments = lengths.size();
  std::int32_t total = 0;
  for (std::int32_t n : lengths) total += n;
  std::vector<std::int32_t> last(segments), back(segments, -1), zero(segments, 0),
      two_on(segments, 2), one(segments, 1), wider(segments);
  for (std::size_t k = 0; k < segments; ++k) {
    last[k] = std::max(lengths[k] - 1, 0);
    wider[k] = lengths[k] + 3;
  }
  std::vector<std::int32_t> numbers(static_cast<std::size_t>(total)), flag_values(numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    numbers[i] = static_cast<std::int32_t>(i * 7 + 1);
    flag_values[i] = i % 3 != 0;
  }
  auto run = [&](const Context& ctx, Op op, bool expression, bool into_wider,
                 bool pending_values = false) {
    const Segdes source = segments_of(ctx, lengths);
    const Segdes dest = segments_of(ctx, into_wider ? wider : lengths);
    // Each segment reversed, or (into a destination 3 longer) moved on by 2, as an append puts
    // its second part.
    Vector indices = into_wider ? index_over(ctx, source, two_on, one)
                                : index_over(ctx, source, last, back);
    if (expression)  // an expression over the INDEX: the same positions
      indices = ew(ctx, Op::Sub, Type::Int, ew(ctx, Op::Add, Type::Int, std::move(indices),
                                               index_over(ctx, source, zero, one)),
                   index_over(ctx, source, zero, one));
    CHECK(static_cast<bool>(pending(indices)) == ctx.lazy);
    PermuteOperands o;
    // Values pending too: a scatter makes them a block at a time as it moves them.
    o.values = pending_values ? ew(ctx, Op::Mul, Type::Int, ints(numbers),
                                   uniform_vector({}, Type::Int, numbers.size(), 3))
                              : ints(numbers);
    CHECK(static_cast<bool>(pending(o.values)) == (ctx.lazy && pending_values));
    o.indices = std::move(indices);
    o.source_segdes = source;
    o.dest_segdes = vcode::info(op).shape == vcode::Shape::Gather ? source : dest;
    if (vcode::permute_has_flags(op))
      o.flags = ew(ctx, Op::NotEqual, Type::Int, ints(flag_values),
                   ints(std::vector<std::int32_t>(numbers.size(), 0)));
    if (vcode::permute_has_defaults(op))
      o.defaults = distribute(ctx, ints(std::vector<std::int32_t>(segments, -5)), view(dest), dest);
    return values_of<std::int32_t>(permute(ctx, op, std::move(o)));
  };
  for (Op op : {Op::Permute, Op::BPermute, Op::DPermute, Op::FPermute, Op::BFPermute,
                Op::DFPermute})
    for (bool expression : {false, true})
      for (bool pending_values : {false, true}) {
        const bool into_wider = vcode::permute_has_defaults(op);
        INFO(vcode::spelling(op) << (expression ? " by an expression over an INDEX" : " by an INDEX")
                                 << (pending_values ? ", values pending" : ""));
        const std::vector<std::int32_t> want =
            run(eager, op, expression, into_wider, pending_values);
        CHECK(run(lazy, op, expression, into_wider, pending_values) == want);
        CHECK(run(two, op, expression, into_wider, pending_values) == want);
      }
  // The model for two of them: each segment reversed; moved on by 2 into defaults of -5.
  const std::vector<std::int32_t> reversed = run(lazy, Op::Permute, false, false);
  const std::vector<std::int32_t> moved = run(lazy, Op::DPermute, false, true);
  std::size_t at = 0, wide_at = 0;
  for (std::size_t k = 0; k < segments; ++k) {
    const auto n = static_cast<std::size_t>(lengths[k]);
    for (std::size_t j = 0; j < n; ++j) {
      CHECK(reversed[at + n - 1 - j] == numbers[at + j]);
      CHECK(moved[wide_at + 2 + j] == numbers[at + j]);
    }
    CHECK(moved[wide_at] == -5);
    CHECK(moved[wide_at + 1] == -5);
    CHECK(moved[wide_at + n + 2] == -5);
    at += n;
    wide_at += n + 3;
  }
  // A bad index, the first one in each op's order, is the op's own error, as with the INDEX
  // stored: segment 5 starts one past its end.
  for (Op op : {Op::Permute, Op::BPermute, Op::DPermute}) {
    auto bad = [&](const Context& ctx) {
      const Segdes sd = segments_of(ctx, lengths);
      std::vector<std::int32_t> starts = zero;
      starts[5] = lengths[5];
      Vector indices = index_over(ctx, sd, starts, one);
      CHECK(static_cast<bool>(pending(indices)) == ctx.lazy);
      PermuteOperands o;
      o.values = ints(numbers);
      o.indices = std::move(indices);
      o.source_segdes = o.dest_segdes = sd;
      if (vcode::permute_has_defaults(op)) o.defaults = ints(numbers);
      return error_of([&] { permute(ctx, op, std::move(o)); });
    };
    const std::string lazy_error = bad(lazy);
    CHECK_THAT(lazy_error, Catch::Contains(std::string(vcode::spelling(op))));
    CHECK(lazy_error == bad(eager));
  }
}

TEST_CASE("pending indices: an INDEX moving each segment as one run is a copy of the runs",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  // Empty segments among long ones; each source segment lands at a start of its own, with room.
  const std::vector<std::int32_t> lengths = {4, 0, 9000, 1, 30000, 0};
  const std::vector<std::int32_t> room = {7, 2, 9000, 5, 30010, 0};
  const std::vector<std::int32_t> starts = {3, 1, 0, 4, 10, 0};
  const std::vector<std::int32_t> strides = {1, 5, 1, -2, 1, 1};  // any stride for one element
  std::size_t total = 0;
  for (std::int32_t n : lengths) total += static_cast<std::size_t>(n);
  const Vector numbers = iota(total, 100);
  // Defaults: one value (uniform), a value per destination segment (a DIST: SegmentValues), or
  // memory.
  auto put = [&](const Context& ctx, Type type, int defaults) {
    const Segdes source = segments_of(ctx, lengths), dest = segments_of(ctx, room);
    PermuteOperands o;
    o.values = type == Type::Float ? ew(ctx, Op::IntToFloat, Type::Int, numbers) : numbers;
    o.indices = index_over(ctx, source, starts, strides);
    o.source_segdes = source;
    o.dest_segdes = dest;
    const std::size_t n = view(dest).total;
    if (defaults == 0) {
      const std::uint64_t bits = type == Type::Float ? std::bit_cast<std::uint64_t>(-2.5)
                                                     : static_cast<std::uint32_t>(-7);
      o.defaults = uniform_vector({}, type, n, bits);
    } else if (defaults == 1) {
      Vector per_segment = iota(room.size(), -20);
      if (type == Type::Float) per_segment = ew(ctx, Op::IntToFloat, Type::Int, per_segment);
      o.defaults = segment_values_vector({std::move(per_segment), dest});
    } else {
      o.defaults = type == Type::Float ? ew(ctx, Op::IntToFloat, Type::Int, iota(n, -50)) : iota(n, -50);
    }
    return bits_of(permute(ctx, Op::DPermute, std::move(o)));
  };
  for (Type type : {Type::Int, Type::Float})
    for (int defaults : {0, 1, 2}) {
      INFO((type == Type::Int ? "INT" : "FLOAT") << ", defaults " << defaults);
      const std::vector<std::uint64_t> want = put(eager, type, defaults);
      CHECK(put(lazy, type, defaults) == want);
      CHECK(want[3] == (type == Type::Int ? 100u : std::bit_cast<std::uint64_t>(100.0)));
      if (defaults == 1)  // the second segment's default around its one element
        CHECK(want[7] == (type == Type::Int ? static_cast<std::uint32_t>(-19)
                                            : std::bit_cast<std::uint64_t>(-19.0)));
    }
  // PERMUTE by an INDEX from 0 by 1 over its own segments: the values, untouched.
  check_untouched(lazy, Op::Permute, segments_of(lazy, lengths));
}

TEST_CASE("pending indices: a BPERMUTE by an INDEX counting by 1 copies each run of its source",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  // Each destination segment is a run of its source segment: from its start, its middle, its
  // end (as a split's two parts are taken), empty; one element at a stride of its own.
  const std::vector<std::int32_t> source_lengths = {9000, 5, 30000, 0, 7, 40};
  const std::vector<std::int32_t> lengths = {8000, 5, 20000, 0, 1, 0};
  const std::vector<std::int32_t> starts = {1000, 0, 3000, 0, 6, 12};
  const std::vector<std::int32_t> strides = {1, 1, 1, 1, -3, 1};
  std::size_t total = 0;
  for (std::int32_t n : source_lengths) total += static_cast<std::size_t>(n);
  auto take = [&](const Context& ctx, Type type, std::vector<std::int32_t> from) {
    const Segdes source = segments_of(ctx, source_lengths), dest = segments_of(ctx, lengths);
    PermuteOperands o;
    o.values = type == Type::Float ? ew(ctx, Op::IntToFloat, Type::Int, iota(total, -70))
                                   : iota(total, -70);
    o.indices = index_over(ctx, dest, std::move(from), strides);
    CHECK(static_cast<bool>(pending(o.indices)) == ctx.lazy);
    o.source_segdes = source;
    o.dest_segdes = dest;
    return bits_of(permute(ctx, Op::BPermute, std::move(o)));
  };
  for (Type type : {Type::Int, Type::Float}) {
    INFO((type == Type::Int ? "INT" : "FLOAT"));
    const std::vector<std::uint64_t> want = take(eager, type, starts);
    CHECK(take(lazy, type, starts) == want);
    CHECK(take(two, type, starts) == want);
    // The model: the first segment from 1000 of the source, the fifth one element at 6.
    const auto value = [&](std::int32_t i) {
      return type == Type::Float ? std::bit_cast<std::uint64_t>(static_cast<double>(i - 70))
                                 : static_cast<std::uint32_t>(i - 70);
    };
    CHECK(want[0] == value(1000));
    CHECK(want[7999] == value(8999));
    CHECK(want[8000] == value(9000));
    CHECK(want[8005] == value(9005 + 3000));
    CHECK(want[28005] == value(9005 + 30000 + 6));
    // A run past its source segment's end is the op's own error, as with the index stored.
    std::vector<std::int32_t> past = starts;
    past[2] = 10001;
    const std::string lazy_error = error_of([&] { take(lazy, type, past); });
    CHECK_THAT(lazy_error, Catch::Contains("BPERMUTE"));
    CHECK(lazy_error == error_of([&] { take(eager, type, past); }));
  }
  // The whole of one segment from 0: the values themselves, no copy.
  check_untouched(lazy, Op::BPermute, one_segment(lazy, kLong));
}

TEST_CASE("replicated runs: a short source read many times over by an INDEX is never copied",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  // Each instance of an all-pairs computation reads a free sequence in place: runs of one short
  // source, gathered into one long segment, the runs the INDEX's segments. Long runs wait (read
  // where they lie, a block that spans runs copied piece by piece), empty ones among them,
  // blocks of the pass cut anywhere in them; short ones are copied, as any runs are.
  constexpr std::int32_t kSource = 1000;
  for (const bool long_runs : {true, false}) {
    INFO((long_runs ? "long runs" : "short runs"));
    std::vector<std::int32_t> lengths, starts;
    std::size_t total = 0;
    for (std::int32_t k = 0; total < 20 * kSource; ++k) {
      const std::int32_t n = long_runs ? (k * 389) % (kSource + 1) : k % 9;
      lengths.push_back(k % 7 == 3 ? 0 : n);
      starts.push_back(lengths.back() == kSource ? 0 : (k * 131) % (kSource - lengths.back() + 1));
      total += static_cast<std::size_t>(lengths.back());
    }
    REQUIRE(total >= kLazyMin);
    auto program = [&](const Context& ctx) {
      const Segdes pieces = segments_of(ctx, lengths);
      auto replicated = [&] {
        PermuteOperands o;
        o.values = ew(ctx, Op::Mul, Type::Float, ew(ctx, Op::IntToFloat, Type::Int, iota(kSource, -400)),
                      uniform_vector({}, Type::Float, kSource, std::bit_cast<std::uint64_t>(0.37)));
        // A stride of 1 for all, as a DIST of the constant 1 makes it.
        o.indices = index(ctx, ints(starts), uniform_vector({}, Type::Int, starts.size(), 1),
                          view(pieces), pieces);
        o.source_segdes = one_segment(ctx, kSource);
        o.dest_segdes = one_segment(ctx, total);
        return permute(ctx, Op::BPermute, std::move(o));
      };
      Vector x = replicated();
      if (ctx.lazy) CHECK(static_cast<bool>(pending(x)) == long_runs);  // not copied
      // Two readers of one term: the first makes it again (a generator over a short source),
      // so that it is never stored; the last takes it in.
      const Vector shift = uniform_vector({}, Type::Float, total, std::bit_cast<std::uint64_t>(1.5));
      Vector term = ew(ctx, Op::Sqrt, Type::Float, ew(ctx, Op::Mul, Type::Float, x, x));
      const Vector least = fold(ctx, Op::MinReduce, ew(ctx, Op::Sub, Type::Float, term, shift), pieces);
      if (ctx.lazy && long_runs) CHECK(pending(term));
      const Vector sums = fold(ctx, Op::PlusReduce, std::move(term), pieces);
      std::vector<std::uint64_t> got = bits_of(x);  // the gather itself, written out
      for (const Vector* v : {&least, &sums}) {
        const std::vector<std::uint64_t> values = bits_of(*v);
        got.insert(got.end(), values.begin(), values.end());
      }
      return got;
    };
    const std::vector<std::uint64_t> want = program(eager);
    CHECK(program(lazy) == want);
    CHECK(program(two) == want);
    // The model: the first element of the first non-empty run.
    std::size_t k = 0;
    while (lengths[k] == 0) ++k;
    CHECK(want[0] == std::bit_cast<std::uint64_t>(static_cast<double>(starts[k] - 400) * 0.37));
  }
}

TEST_CASE("pending indices: runs that leave every element where it is move nothing",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  // Pieces of one segment (as a conditional's kept segments are), each run from its own offset.
  const std::vector<std::int32_t> pieces = {3, 0, 9000, 1, 30000};
  std::vector<std::int32_t> offsets;
  std::int32_t total = 0;
  for (std::int32_t n : pieces) {
    offsets.push_back(total);
    total += n;
  }
  const std::vector<std::int32_t> ones(pieces.size(), 1);
  const auto n = static_cast<std::size_t>(total);
  // BPERMUTE from one segment into one as long, or DPERMUTE from one into one `room` long, by an
  // INDEX over the pieces; `starts`: where each piece's run is on the other side.
  auto run = [&](const Context& ctx, Op op, std::vector<std::int32_t> starts, std::size_t room,
                 bool& untouched) {
    const Segdes split = segments_of(ctx, pieces), whole = one_segment(ctx, n);
    PermuteOperands o;
    o.values = iota(n, 11);
    const Storage* values = o.values.storage.get();
    o.indices = index_over(ctx, split, std::move(starts), ones);
    if (op == Op::BPermute) {
      o.source_segdes = whole;
      o.dest_segdes = whole;
    } else {
      o.source_segdes = whole;
      o.dest_segdes = one_segment(ctx, room);
      o.defaults = iota(room, -40);
    }
    const Vector out = permute(ctx, op, std::move(o));
    untouched = out.storage.get() == values;
    return values_of<std::int32_t>(out);
  };
  for (Op op : {Op::BPermute, Op::DPermute}) {
    INFO(vcode::spelling(op));
    bool untouched = false, copied = true;
    // Every element where it is: the values are the result, not copied.
    const std::vector<std::int32_t> same = run(lazy, op, offsets, n, untouched);
    CHECK(untouched);
    CHECK(same == values_of<std::int32_t>(iota(n, 11)));
    CHECK(run(eager, op, offsets, n, copied) == same);
    // One run moved, or (a DPERMUTE) room left at the end for a default: copies, as eager's.
    std::vector<std::int32_t> moved = offsets;
    moved[0] = offsets[3] - 2;  // the first piece's run from (or to) further on
    moved[3] = 0;               // and the one-element piece's from (or to) the start
    for (const auto& [starts, room] : {std::pair{moved, n}, std::pair{offsets, n + 5}}) {
      if (op == Op::BPermute && room != n) continue;
      const std::vector<std::int32_t> want = run(eager, op, starts, room, copied);
      CHECK(run(lazy, op, starts, room, untouched) == want);
      CHECK_FALSE(untouched);
    }
  }
}

// Subsequences of a nested sequence, as a nested get or permute moves them: the flattened values
// are one segment, the INDEX counts by 1 over finer segments (short, some empty, some longer than
// a wide copy), so that each of its segments is one run of the values.
struct Subsequences {
  std::vector<std::int32_t> lengths;  // of the INDEX's segments, summing to `total`
  std::vector<std::int32_t> starts;   // where each run begins on the other side
  std::size_t total = 0;
};

// Runs of 0 to 12 elements, taken from anywhere in `length` elements (a get: they may overlap and
// the last ones end at its very end), or placed where a permutation of them puts them (`moved`).
Subsequences subsequences(std::mt19937& random, std::size_t runs, std::size_t length, bool moved) {
  Subsequences s;
  for (std::size_t k = 0; k < runs; ++k) {
    const auto n = static_cast<std::int32_t>(random() % 4 == 0 ? 0 : random() % 13);
    s.lengths.push_back(n);
    s.total += static_cast<std::size_t>(n);
  }
  if (moved) {  // the runs in a shuffled order, end to end
    std::vector<std::size_t> order(runs);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    s.starts.assign(runs, 0);
    std::int32_t at = 0;
    for (std::size_t k : order) {
      s.starts[k] = at;
      at += s.lengths[k];
    }
    return s;
  }
  for (std::int32_t n : s.lengths)
    s.starts.push_back(static_cast<std::int32_t>(random() % (length - static_cast<std::size_t>(n) + 1)));
  s.starts.back() = static_cast<std::int32_t>(length) - s.lengths.back();
  return s;
}

TEST_CASE("pending indices: subsequences of one segment moved by an INDEX over them are copies",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  std::mt19937 random(5);
  constexpr std::size_t kRuns = 9000, kSource = 40000;
  const Subsequences got = subsequences(random, kRuns, kSource, false);
  const Subsequences moved = subsequences(random, kRuns, 0, true);
  auto values = [&](const Context& ctx, Type type, std::size_t n) {
    if (type == Type::Bool) {
      Vector flags = allocate(Type::Bool, n);
      for (std::size_t i = 0; i < n; ++i) elements<std::uint8_t>(flags)[i] = i % 3 == 1;
      return flags;
    }
    Vector v = iota(n, -30000);
    return type == Type::Float ? ew(ctx, Op::IntToFloat, Type::Int, std::move(v)) : v;
  };
  // op by the INDEX of `s`'s runs; the INDEX is still pending after (a copy by runs never makes
  // the positions) when `index_kept` is given.
  auto move = [&](const Context& ctx, Op op, Type type, const Subsequences& s, std::size_t other,
                  Vector* index_kept = nullptr, bool one_default = false) {
    const Segdes runs = segments_of(ctx, s.lengths);
    PermuteOperands o;
    o.indices = index_over(ctx, runs, s.starts, std::vector<std::int32_t>(s.lengths.size(), 1));
    if (index_kept) *index_kept = o.indices;
    const bool gathers = op == Op::BPermute;
    o.values = values(ctx, type, gathers ? other : s.total);
    o.source_segdes = one_segment(ctx, gathers ? other : s.total);
    o.dest_segdes = one_segment(ctx, gathers ? s.total : other);
    if (op == Op::DPermute)  // memory, or one value described
      o.defaults = one_default ? uniform_vector({}, type, other, 1) : values(ctx, type, other);
    return bits_of(permute(ctx, op, std::move(o)));
  };
  for (Type type : {Type::Int, Type::Float, Type::Bool}) {
    INFO("type " << int(type));
    const std::vector<std::uint64_t> want = move(eager, Op::BPermute, type, got, kSource);
    Vector index;
    CHECK(move(lazy, Op::BPermute, type, got, kSource, &index) == want);
    CHECK(pending(index));
    CHECK(move(two, Op::BPermute, type, got, kSource) == want);
    // The model: run k of the result is the source from starts[k].
    const std::vector<std::uint64_t> source = bits_of(values(eager, type, kSource));
    std::size_t at = 0;
    for (std::size_t k = 0; k < kRuns; ++k)
      for (std::int32_t i = 0; i < got.lengths[k]; ++i, ++at)
        REQUIRE(want[at] == source[static_cast<std::size_t>(got.starts[k] + i)]);
    // A PERMUTE of the subsequences into a shuffled order; a DPERMUTE into a longer default.
    CHECK(move(lazy, Op::Permute, type, moved, moved.total, &index) ==
          move(eager, Op::Permute, type, moved, moved.total));
    CHECK(pending(index));
    for (bool one_default : {false, true})
      CHECK(move(lazy, Op::DPermute, type, moved, moved.total + 50, nullptr, one_default) ==
            move(eager, Op::DPermute, type, moved, moved.total + 50, nullptr, one_default));
  }
  // The first nonempty run from k on.
  auto nonempty = [](const Subsequences& s, std::size_t k) {
    while (s.lengths[k] == 0) ++k;
    return k;
  };
  // Two runs of one length sent to one place: the later wins, as in the op's loop; the place the
  // later one left keeps its default.
  Subsequences twice = moved;
  const std::size_t first = nonempty(moved, 10);
  std::size_t later = first + 1;
  while (moved.lengths[later] != moved.lengths[first]) ++later;
  twice.starts[later] = twice.starts[first];
  CHECK(move(lazy, Op::DPermute, Type::Int, twice, twice.total) ==
        move(eager, Op::DPermute, Type::Int, twice, twice.total));
  // A segment of several elements at a stride of 2 is no run: moved as the op moves it.
  {
    const Segdes runs = segments_of(lazy, got.lengths);
    std::vector<std::int32_t> strides(got.lengths.size(), 1);
    const std::size_t k = nonempty(got, 100);
    strides[k] = 2;
    auto take = [&](const Context& ctx) {
      PermuteOperands o;
      o.indices = index_over(ctx, runs, got.starts, strides);
      o.values = iota(kSource + 20, 7);
      o.source_segdes = one_segment(ctx, kSource + 20);
      o.dest_segdes = one_segment(ctx, got.total);
      return values_of<std::int32_t>(permute(ctx, Op::BPermute, std::move(o)));
    };
    const std::vector<std::int32_t> want = take(eager);
    CHECK(take(lazy) == want);
    const std::size_t at = static_cast<std::size_t>(
        std::accumulate(got.lengths.begin(), got.lengths.begin() + static_cast<std::ptrdiff_t>(k), 0));
    CHECK(want[at + 1] == got.starts[k] + 2 + 7);
  }
  // A run one past the end of its segment is the op's own error.
  for (Op op : {Op::BPermute, Op::Permute, Op::DPermute}) {
    Subsequences bad = op == Op::BPermute ? got : moved;
    const std::size_t other = op == Op::BPermute ? kSource : moved.total;
    const std::size_t k = nonempty(bad, kRuns / 2);
    bad.starts[k] = static_cast<std::int32_t>(other) - bad.lengths[k] + 1;
    const std::string lazy_error = error_of([&] { move(lazy, op, Type::Int, bad, other); });
    CHECK_THAT(lazy_error, Catch::Contains(std::string(vcode::spelling(op))));
    CHECK(lazy_error == error_of([&] { move(eager, op, Type::Int, bad, other); }));
  }
}

TEST_CASE("pending indices: runs gathered eight at a time write nothing past either end",
          "[cpu][lazy]") {
  const Context lazy = context(1, true);
  // Short runs, for every source length around the wide copy's width, read from either end of the
  // source, then single elements from each of its last positions and into each of the
  // destination's last ones. The destination sits between guards, which must come out as they
  // went in; the source is exactly as long as it is, so that a read past it is AddressSanitizer's
  // error in the sanitizer build.
  for (std::size_t length = 1; length <= 3 * kWideRun; ++length) {
    std::vector<std::int32_t> lengths, starts;
    std::size_t total = 0;
    auto run = [&](std::int32_t n, std::int32_t start) {
      lengths.push_back(n);
      starts.push_back(start);
      total += static_cast<std::size_t>(n);
    };
    while (total < kLazyMin) {  // long enough to stay pending
      const auto n = static_cast<std::int32_t>(std::min<std::size_t>(lengths.size() % 4, length));
      run(n, lengths.size() % 2 == 0 ? static_cast<std::int32_t>(length) - n : 0);  // at an end
    }
    for (std::size_t d = 1; d <= std::min(length, kWideRun + 1); ++d)
      run(1, static_cast<std::int32_t>(length - d));
    for (std::size_t d = 0; d <= kWideRun; ++d) run(1, 0);
    const Segdes runs = segments_of(lazy, lengths);
    // Strides of one value: with more runs than elements, an INDEX of two such operands would be
    // computed at once (it would hold more memory pending).
    const Vector positions = index(lazy, ints(starts), uniform_vector({}, Type::Int, lengths.size(), 1),
                                   view(runs), runs);
    REQUIRE(pending(positions));
    const SegmentView counted = view(one_segment(lazy, total)), addressed = view(one_segment(lazy, length));
    const std::optional<IndexRuns> found = IndexRuns::of(*pending(positions), counted, addressed);
    REQUIRE(found);
    constexpr std::int32_t kGuard = -12345;
    std::vector<std::int32_t> source(length), out(total + 2 * kWideRun, kGuard);
    std::iota(source.begin(), source.end(), 0);
    found->gather(source.data(), length, out.data() + kWideRun);
    std::size_t at = kWideRun;
    for (std::size_t k = 0; k < lengths.size(); ++k)
      for (std::int32_t i = 0; i < lengths[k]; ++i) REQUIRE(out[at++] == starts[k] + i);
    for (std::size_t i = 0; i < kWideRun; ++i) {
      REQUIRE(out[i] == kGuard);
      REQUIRE(out[kWideRun + total + i] == kGuard);
    }
  }
}

TEST_CASE("pending indices: an INDEX of one stride for all segments, read a block at a time",
          "[cpu][lazy]") {
  // Many short segments of differing lengths, some empty, so that the blocks a FUSED pass reads
  // in start inside segments, at their ends, and between empty ones; the stride the same for all
  // (a uniform vector: one constant of the expression) or one per segment.
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  std::mt19937 random(11);
  std::vector<std::int32_t> lengths;
  std::size_t total = 0;
  while (total < 3 * kLazyMin) {
    const auto n = static_cast<std::int32_t>(random() % 12 == 0 ? 0 : random() % 9 + 1);
    lengths.push_back(n);
    total += static_cast<std::size_t>(n);
  }
  std::vector<std::int32_t> starts(lengths.size()), strides(lengths.size());
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    starts[k] = static_cast<std::int32_t>(random() % 1000) - 500;
    strides[k] = static_cast<std::int32_t>(random() % 7) - 3;
  }
  auto positions = [&](const Context& ctx, bool one_stride) {
    const Segdes sd = segments_of(ctx, lengths);
    Vector stride = one_stride ? uniform_vector({}, Type::Int, lengths.size(), 1) : ints(strides);
    Vector at = index(ctx, ints(starts), std::move(stride), view(sd), sd);
    CHECK(static_cast<bool>(pending(at)) == ctx.lazy);
    // Into an elementwise op: the INDEX is a node of its FUSED pass.
    return values_of<std::int32_t>(ew(ctx, Op::Add, Type::Int, std::move(at), iota(total)));
  };
  for (bool one_stride : {true, false}) {
    INFO((one_stride ? "one stride" : "a stride per segment"));
    const std::vector<std::int32_t> want = positions(eager, one_stride);
    CHECK(positions(lazy, one_stride) == want);
    CHECK(positions(two, one_stride) == want);
    if (one_stride) {  // the model
      std::size_t at = 0;
      for (std::size_t k = 0; k < lengths.size(); ++k)
        for (std::int32_t j = 0; j < lengths[k]; ++j, ++at)
          CHECK(want[at] == starts[k] + j + static_cast<std::int32_t>(at));
    }
  }
}

TEST_CASE("scatters: fields moved by one index are checked once, by the first", "[cpu][lazy]") {
  const Context ctx = context(1, true), eager = context(1, false);
  std::mt19937 random(29);
  std::vector<std::int32_t> order(kLong);
  for (std::size_t i = 0; i < kLong; ++i) order[i] = static_cast<std::int32_t>(i);
  std::shuffle(order.begin(), order.end(), random);
  const Vector index = ints(order);
  CHECK_FALSE(indices_below(index));
  const Vector first = scatter(ctx, iota(kLong, 5), index);
  REQUIRE(indices_below(index));
  CHECK(*indices_below(index) == kLong);
  // The second field: moved without a check, to the same places.
  const Vector second = scatter(ctx, iota(kLong, -9), index);
  const std::vector<std::int32_t> a = values_of<std::int32_t>(first), b = values_of<std::int32_t>(second);
  for (std::size_t i = 0; i < kLong; ++i) {
    CHECK(a[static_cast<std::size_t>(order[i])] == static_cast<std::int32_t>(i) + 5);
    CHECK(b[static_cast<std::size_t>(order[i])] == static_cast<std::int32_t>(i) - 9);
  }
  // Into a destination shorter than the index was checked for: checked again, the op's error.
  auto into_shorter = [&](const Context& c) {
    PermuteOperands o;
    o.values = iota(kLong);
    o.indices = index;
    o.source_segdes = one_segment(c, kLong);
    o.dest_segdes = one_segment(c, kLong - 1);
    o.defaults = iota(kLong - 1);
    return error_of([&] { permute(c, Op::DPermute, std::move(o)); });
  };
  const std::string error = into_shorter(ctx);
  CHECK_THAT(error, Catch::Contains("DPERMUTE"));
  CHECK(error == into_shorter(eager));
}

TEST_CASE("pending indices: an INDEX taken into an elementwise op is never stored", "[cpu][lazy]") {
  const Context ctx = context(1, true);
  const Segdes sd = segments_of(ctx, {5, static_cast<std::int32_t>(kLong), 7});
  Vector positions = index_over(ctx, sd, {10, -3, 0}, {2, 1, -4});
  REQUIRE(pending(positions));
  const Vector sum = ew(ctx, Op::Add, Type::Int, std::move(positions), iota(kLong + 12));
  REQUIRE(pending(sum));
  const std::vector<std::int32_t> got = values_of<std::int32_t>(sum);
  CHECK(got[0] == 10);
  CHECK(got[4] == 18 + 4);
  CHECK(got[5] == -3 + 5);
  CHECK(got[5 + kLong - 1] == static_cast<std::int32_t>(kLong) - 4 + static_cast<std::int32_t>(5 + kLong - 1));
  CHECK(got[5 + kLong + 6] == -24 + static_cast<std::int32_t>(5 + kLong + 6));
}

// RAND of `n` draws of `bound` each, as the backend runs it.
Vector rand_of(const Context& ctx, std::size_t n, std::int32_t bound, RandomStream& stream) {
  return random(ctx, uniform_vector({}, Type::Int, n, static_cast<std::uint32_t>(bound)), stream);
}

TEST_CASE("pending RAND: draws made where read are the stream's, which moves on past them",
          "[cpu][lazy]") {
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    const Context eager = context(threads, false), lazy = context(threads, true);
    const std::size_t n = 3 * kMemoryBoundThreshold + 17;  // shared out at two threads
    RandomStream expected_stream, stream;
    expected_stream.seed(7);
    stream.seed(7);
    const std::vector<std::int32_t> first = values_of<std::int32_t>(rand_of(eager, n, 1000, expected_stream));
    const std::vector<std::int32_t> second = values_of<std::int32_t>(rand_of(eager, n, 10, expected_stream));
    const std::vector<std::int32_t> third = values_of<std::int32_t>(rand_of(eager, 100, 10, expected_stream));

    Vector a = rand_of(lazy, n, 1000, stream);
    Vector b = rand_of(lazy, n, 10, stream);
    REQUIRE(pending(a));
    REQUIRE(pending(b));
    // Read in the other order, and after the stream was reseeded: each holds its own copy.
    stream.seed(3);
    CHECK(values_of<std::int32_t>(b) == second);
    const Vector floats = ew(lazy, Op::IntToFloat, Type::Int, std::move(a));
    REQUIRE(pending(floats));
    const std::vector<double> got = values_of<double>(floats);
    REQUIRE(got.size() == n);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) differ += got[i] != static_cast<double>(first[i]);
    CHECK(differ == 0);

    // A pending RAND dropped unread still moves the stream on; a short one runs at once.
    stream.seed(7);
    { const Vector dropped = rand_of(lazy, n, 1000, stream); }
    { const Vector dropped = rand_of(lazy, n, 10, stream); }
    const Vector short_one = rand_of(lazy, 100, 10, stream);
    CHECK_FALSE(pending(short_one));
    CHECK(values_of<std::int32_t>(short_one) == third);

    // Folded as drawn.
    stream.seed(7);
    Vector c = rand_of(lazy, n, 1000, stream);
    const Segdes sd = one_segment(lazy, n);
    const Vector sum = fold(lazy, Op::PlusReduce, std::move(c), sd);
    std::int32_t expected_sum = 0;
    for (std::int32_t v : first) expected_sum += v;
    CHECK(values_of<std::int32_t>(sum) == std::vector<std::int32_t>{expected_sum});
  }
}

TEST_CASE("short gathers: a permute of a DIST of a short vector moves its segment numbers",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const std::size_t m = 6000;  // values, one per segment (bh's bodies, spread over their cells)
  std::vector<std::int32_t> lengths(m);
  for (std::size_t k = 0; k < m; ++k) lengths[k] = 1 + static_cast<std::int32_t>(k % 8);
  auto moved = [&](const Context& ctx) {
    const Segdes sd = segments_of(ctx, lengths);
    const std::size_t n = view(sd).total;
    std::vector<std::int32_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::int32_t>(i);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(8));
    const Vector to = ints(order);
    const Vector x = distribute(ctx, iota(m, 10), view(sd), sd);
    const Vector y = distribute(ctx, iota(m, 70000), view(sd), sd);
    return std::pair{scatter(ctx, x, to), scatter(ctx, y, to)};
  };
  const auto [x, y] = moved(lazy);
  REQUIRE(x.length > kLazyMin);
  REQUIRE(short_gather_of(x));
  REQUIRE(short_gather_of(y));
  CHECK(short_gather_of(x)->positions.storage == short_gather_of(y)->positions.storage);
  const auto [want_x, want_y] = moved(eager);
  CHECK(int_values(x) == int_values(want_x));
  CHECK(int_values(y) == int_values(want_y));
}

TEST_CASE("short gathers: a DIST of one spreads its positions, which fields spread alike share",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false);
  const std::size_t bodies = 2000;
  const Vector x = iota(bodies, 10), y = iota(bodies, 50000);
  const Vector body_of = scrambled(kLong, bodies, 9);
  std::vector<std::int32_t> lengths(kLong);
  for (std::size_t k = 0; k < kLong; ++k) lengths[k] = static_cast<std::int32_t>(k % 3);
  auto spread = [&](const Context& ctx) {
    const Segdes sd = segments_of(ctx, lengths);
    const Vector gx = gather(ctx, x, body_of), gy = gather(ctx, y, body_of);
    return std::pair{distribute(ctx, gx, view(sd), sd), distribute(ctx, gy, view(sd), sd)};
  };
  const auto [sx, sy] = spread(lazy);
  REQUIRE(short_gather_of(sx));
  REQUIRE(short_gather_of(sy));
  CHECK(short_gather_of(sx)->source.storage == x.storage);
  CHECK(short_gather_of(sx)->positions.storage == short_gather_of(sy)->positions.storage);
  const auto [want_x, want_y] = spread(eager);
  CHECK(int_values(sx) == int_values(want_x));
  CHECK(int_values(sy) == int_values(want_y));
}

TEST_CASE("pending results that share a pending value: computed in one pass, the value unstored",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  auto floats = [&](const Context& ctx, std::int32_t from) {
    return ew(ctx, Op::IntToFloat, Type::Int, iota(kLong, from));
  };
  // a = x * y read by p (a BOOL), q and r alone; b = x * z also held here, read by s and t.
  auto program = [&](const Context& ctx, bool check) {
    const Vector x = floats(ctx, -700), y = floats(ctx, 3), z = floats(ctx, 11);
    for (const Vector* v : {&x, &y, &z}) elements<std::byte>(*v);
    Vector a = ew(ctx, Op::Mul, Type::Float, x, y);
    const std::weak_ptr<Storage> a_storage = a.storage;
    const Vector p = ew(ctx, Op::Less, Type::Float, a, z);
    const Vector q = ew(ctx, Op::Mul, Type::Float, a, z);
    const Vector r = ew(ctx, Op::Sub, Type::Float, std::move(a), x);
    const Vector b = ew(ctx, Op::Mul, Type::Float, x, z);
    const Vector s = ew(ctx, Op::Add, Type::Float, b, y);
    const Vector t = ew(ctx, Op::Sub, Type::Float, b, y);
    if (check) {
      for (const Vector* v : {&p, &q, &r, &b, &s, &t}) REQUIRE(pending(*v));
      elements<std::byte>(p);
      // q and r were computed with p, and a, read only by them, never was: it is gone.
      CHECK_FALSE(pending(q));
      CHECK_FALSE(pending(r));
      CHECK(a_storage.expired());
      // b is held here too, so it is stored whatever s shares with t: t waits.
      elements<std::byte>(s);
      CHECK_FALSE(pending(b));
      CHECK(pending(t));
    }
    std::vector<double> values;
    for (const Vector* v : {&q, &r, &s, &t})
      for (std::size_t j = 0; j < kLong; j += 101) values.push_back(elements<double>(*v)[j]);
    for (std::size_t j = 0; j < kLong; j += 101) values.push_back(elements<std::uint8_t>(p)[j]);
    return values;
  };
  const std::vector<double> want = program(eager, false);
  CHECK(program(lazy, true) == want);
  CHECK(program(two, true) == want);
}

TEST_CASE("pending DIST: short segments' values made where read, by an op or a scatter",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true);
  // More values than a short gather's source has: a permute then reads the values themselves.
  const std::size_t m = kShortGatherSource + 333;
  // Each of m values twice (quickhull's points, one copy for each half of the hull), then a
  // transpose puts the copies one after the other: by an INDEX (pending) or a stored index.
  auto copies = [&](const Context& ctx, bool index_pending, bool floats) {
    const Segdes pairs = segments_of(ctx, std::vector<std::int32_t>(m, 2));
    Vector values = iota(m, 11);
    if (floats) values = ew(ctx, Op::IntToFloat, Type::Int, std::move(values));
    Vector twice = distribute(ctx, std::move(values), view(pairs), pairs);
    CHECK(static_cast<bool>(pending(twice)) == ctx.lazy);
    std::vector<std::int32_t> to(2 * m);
    for (std::size_t j = 0; j < 2 * m; ++j) to[j] = static_cast<std::int32_t>((j % 2) * m + j / 2);
    std::vector<std::int32_t> strides(m, static_cast<std::int32_t>(m)), starts(m);
    for (std::size_t k = 0; k < m; ++k) starts[k] = static_cast<std::int32_t>(k);
    Vector indices = index_pending ? index_over(ctx, pairs, starts, strides) : ints(to);
    const Vector out = scatter(ctx, std::move(twice), std::move(indices));
    CHECK_FALSE(pending(out));
    std::vector<double> got(2 * m);
    for (std::size_t j = 0; j < 2 * m; ++j)
      got[j] = floats ? elements<double>(out)[j] : elements<std::int32_t>(out)[j];
    return got;
  };
  for (bool index_pending : {false, true})
    for (bool floats : {false, true}) {
      INFO((index_pending ? "by an INDEX" : "by a stored index") << (floats ? ", FLOAT" : ", INT"));
      const std::vector<double> want = copies(eager, index_pending, floats);
      CHECK(copies(lazy, index_pending, floats) == want);
      CHECK(copies(two, index_pending, floats) == want);
      for (std::size_t j = 0; j < m; j += 997) {
        CHECK(want[j] == static_cast<double>(11 + j));
        CHECK(want[m + j] == static_cast<double>(11 + j));
      }
    }
  // Segments of many lengths, empty ones too, into an elementwise op and a reduction.
  std::vector<std::int32_t> lengths;
  for (std::size_t k = 0; lengths.size() < 9000; ++k) lengths.push_back(static_cast<std::int32_t>(k % 7));
  auto spread = [&](const Context& ctx) {
    const Segdes sd = segments_of(ctx, lengths);
    const std::size_t n = view(sd).total;
    Vector d = distribute(ctx, iota(lengths.size(), -40), view(sd), sd);
    CHECK(static_cast<bool>(pending(d)) == ctx.lazy);
    const Vector sum = ew(ctx, Op::Mul, Type::Int, std::move(d), iota(n));
    const Vector total = fold(ctx, Op::PlusReduce, sum, sd);
    std::vector<std::int32_t> got = values_of<std::int32_t>(sum);
    const std::vector<std::int32_t> per_segment = values_of<std::int32_t>(total);
    got.insert(got.end(), per_segment.begin(), per_segment.end());
    return got;
  };
  const std::vector<std::int32_t> want = spread(eager);
  CHECK(spread(lazy) == want);
  CHECK(spread(two) == want);
  CHECK(want[0] == 0);   // segment 0 is empty: element 0 is segment 1's, value -39, times 0
  CHECK(want[1] == -38);  // segment 2's first element (position 1), value -38
}

TEST_CASE("cheap generators: each reader makes its own values, which are never stored",
          "[cpu][lazy]") {
  const Context lazy = context(1, true), eager = context(1, false), two = context(2, true),
                fast = context(2, true, true);
  std::vector<std::int32_t> lengths, starts, strides;
  for (std::int32_t k = 0; k < 5000; ++k) {
    lengths.push_back(k % 11);  // empty segments too
    starts.push_back(1 + k % 5);
    strides.push_back(1 + k % 3);
  }
  // ln's argument check and its sum (sum of logs with checks on): x = float(INDEX) read by
  // OR_REDUCE(x < 0) and by +_REDUCE(LOG x); then y, another such generator, read by two
  // reductions; and an expensive one (LOG of x), whose first reduction waits for the second in
  // its fold group (pending/fold_group.hpp): both in one pass, the logs never stored.
  auto program = [&](const Context& ctx, bool check) {
    const Segdes sd = segments_of(ctx, lengths);
    const std::size_t n = view(sd).total;
    REQUIRE(n > kLazyMin);
    const Vector zero = uniform_vector({}, Type::Float, n, std::bit_cast<std::uint64_t>(0.0));
    Vector x = ew(ctx, Op::IntToFloat, Type::Int, index_over(ctx, sd, starts, strides));
    const std::weak_ptr<Storage> x_storage = x.storage;
    if (check) REQUIRE(pending(x));
    const Vector negative = fold(ctx, Op::OrReduce, ew(ctx, Op::Less, Type::Float, x, zero), sd);
    if (check) CHECK(pending(x));  // the check made x's values again: x still waits
    const Vector sums = fold(ctx, Op::PlusReduce, ew(ctx, Op::Log, Type::Float, std::move(x)), sd);
    if (check) CHECK(x_storage.expired());  // taken into the sum: never stored
    Vector y = ew(ctx, Op::Mul, Type::Float,
                  ew(ctx, Op::IntToFloat, Type::Int, index_over(ctx, sd, starts, strides)),
                  uniform_vector({}, Type::Float, n, std::bit_cast<std::uint64_t>(0.1)));
    const Vector maxima = fold(ctx, Op::MaxReduce, y, sd);
    if (check) CHECK(pending(y));
    const Vector totals = fold(ctx, Op::PlusScan, std::move(y), sd);
    Vector logs = ew(ctx, Op::Log, Type::Float,
                     ew(ctx, Op::IntToFloat, Type::Int, index_over(ctx, sd, starts, strides)));
    const Vector logs_max = fold(ctx, Op::MaxReduce, logs, sd);
    if (check) CHECK(pending(logs));  // LOG costs more than storing; the max waits in its group
    const Vector logs_total = fold(ctx, Op::PlusReduce, std::move(logs), sd);
    std::vector<double> got;
    for (const Vector* v : {&sums, &maxima, &totals, &logs_max, &logs_total}) {
      const std::vector<double> values = values_of<double>(*v);
      got.insert(got.end(), values.begin(), values.end());
    }
    for (std::uint8_t b : values_of<std::uint8_t>(negative)) got.push_back(b);
    return got;
  };
  const std::vector<double> want = program(eager, false);
  CHECK(program(lazy, true) == want);
  CHECK(program(two, true) == want);
  program(fast, true);
}

TEST_CASE("a costly result read by scans and reductions: one pass writes the scans' results, "
          "the result is never stored",
          "[cpu][lazy]") {
  std::vector<std::int32_t> lengths, starts, strides;
  for (std::int32_t k = 0; k < 3000; ++k) {
    lengths.push_back(k % 500 == 7 ? 20000 : k % 11);  // long segments cut by parts, empty ones
    starts.push_back(k % 7 == 3 ? -3 : 1 + k % 5);     // logs of negatives: NaNs inside segments
    strides.push_back(1 + k % 3);
  }
  // The logs of x = float(INDEX): a FLOAT + scan of them, a MAX scan of their squares (an
  // expression over them), their sum; then, another such log, its INT-typed sibling read the
  // other way round: the sum first, the scan last.
  auto program = [&](const Context& ctx, bool check) {
    const Segdes sd = segments_of(ctx, lengths);
    REQUIRE(view(sd).total > 2 * kMemoryBoundThreshold);
    auto logs_of_index = [&] {
      return ew(ctx, Op::Log, Type::Float,
                ew(ctx, Op::IntToFloat, Type::Int, index_over(ctx, sd, starts, strides)));
    };
    Vector logs = logs_of_index();
    const Vector held = logs;  // another holder: the pass must leave the logs pending for it
    const Vector sums = fold(ctx, Op::PlusScan, logs, sd);
    if (check) CHECK(pending(logs));
    const Vector maxima = fold(ctx, Op::MaxScan, ew(ctx, Op::Mul, Type::Float, logs, logs), sd);
    const Vector total = fold(ctx, Op::PlusReduce, std::move(logs), sd);
    Vector more = logs_of_index();
    const Vector least = fold(ctx, Op::MinReduce, more, sd);
    const Vector floors = fold(ctx, Op::MinScan, std::move(more), sd);
    std::vector<double> got;
    for (const Vector* v : {&sums, &maxima, &total, &least, &floors}) {
      const std::vector<double> values = values_of<double>(*v);
      got.insert(got.end(), values.begin(), values.end());
    }
    // Every result read, one pass each: the logs still wait for their other holder.
    if (check) CHECK(pending(held));
    return got;
  };
  for (int threads : {1, 2, 4}) {
    INFO(threads << " threads");
    const std::vector<double> want = program(context(threads, false), false);
    const std::vector<double> got = program(context(threads, true), true);
    REQUIRE(got.size() == want.size());
    CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0);
  }
}

}  // namespace
}  // namespace cvl::cpu
