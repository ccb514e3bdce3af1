#include "fopt/ranges.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "fopt/entry_facts.hpp"
#include "fopt/length_facts.hpp"
#include "fopt/op_facts.hpp"

namespace fopt {
namespace {

using vcode::Op;
using vcode::TypeKeyword;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The values a FLOAT variable may hold at any of its elements: the reals in [lo, hi] (-0.0 and
// 0.0 being one number, as comparisons treat them), and NaN where `nan` says so.
struct Interval {
  double lo = -kInf, hi = kInf;
  bool nan = true;

  bool exactly_zero() const { return lo == 0 && hi == 0 && !nan; }
  bool holds_zero() const { return lo <= 0 && hi >= 0; }
  bool infinite() const { return lo == -kInf || hi == kInf; }
};

const Interval kAnything{};

// The interval of an operation's results from bounds computed with one rounding each, widened by
// one unit in the last place on each side: it then holds the exact results too, so it stays
// valid for a backend that rounds differently (a fused multiply-add, a vector function within
// one ulp). Widening stops at zero where the rounded bound shows the exact one has that sign (a
// +0.0 or positive lower bound comes from a nonnegative exact one, and no rounding of a
// nonnegative value is negative). A NaN bound (an infinity minus itself) says nothing is known.
Interval computed(double lo, double hi, bool nan) {
  if (std::isnan(lo) || std::isnan(hi)) return kAnything;
  double low = std::nextafter(lo, -kInf), high = std::nextafter(hi, kInf);
  if (lo > 0 || (lo == 0 && !std::signbit(lo))) low = std::max(low, 0.0);
  if (hi < 0 || (hi == 0 && std::signbit(hi))) high = std::min(high, -0.0);
  return {low, high, nan};
}

Interval add(const Interval& a, const Interval& b) {
  const bool opposite_infinities =
      (a.hi == kInf && b.lo == -kInf) || (a.lo == -kInf && b.hi == kInf);
  return computed(a.lo + b.lo, a.hi + b.hi, a.nan || b.nan || opposite_infinities);
}

Interval subtract(const Interval& a, const Interval& b) {
  const bool same_infinities = (a.hi == kInf && b.hi == kInf) || (a.lo == -kInf && b.lo == -kInf);
  return computed(a.lo - b.hi, a.hi - b.lo, a.nan || b.nan || same_infinities);
}

// Products and quotients over a box take their extremes at its corners (for a quotient, while
// the divisor keeps one sign), and rounding keeps order.
Interval corners(double p, double q, double r, double s, bool nan) {
  if (std::isnan(p) || std::isnan(q) || std::isnan(r) || std::isnan(s)) return kAnything;
  return computed(std::min({p, q, r, s}), std::max({p, q, r, s}), nan);
}

Interval multiply(const Interval& a, const Interval& b) {
  const bool zero_times_infinity =
      (a.holds_zero() && b.infinite()) || (b.holds_zero() && a.infinite());
  return corners(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi,
                 a.nan || b.nan || zero_times_infinity);
}

Interval divide(const Interval& a, const Interval& b) {
  if (b.holds_zero()) return kAnything;
  return corners(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi,
                 a.nan || b.nan || (a.infinite() && b.infinite()));
}

Interval square_root(const Interval& a) {
  if (a.lo < 0) return {0, std::nextafter(std::sqrt(std::max(a.hi, 0.0)), kInf), true};
  return computed(std::sqrt(a.lo), std::sqrt(a.hi), a.nan);
}

Interval either(const Interval& a, const Interval& b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.nan || b.nan};
}

// Whether comparison `op` (FLOAT) is false for every pair of values from `a` and `b`. Every
// comparison but != is false with a NaN operand.
bool never_true(Op op, const Interval& a, const Interval& b) {
  switch (op) {
    case Op::Equal: return a.hi < b.lo || b.hi < a.lo;
    case Op::Less: return a.lo >= b.hi;
    case Op::LessEq: return a.lo > b.hi;
    case Op::Greater: return a.hi <= b.lo;
    case Op::GreaterEq: return a.hi < b.lo;
    default: return false;
  }
}

// Whether comparison `op` (FLOAT) is true for every pair of values from `a` and `b` (so never
// with a NaN operand).
bool always_true(Op op, const Interval& a, const Interval& b) {
  if (a.nan || b.nan) return false;
  switch (op) {
    case Op::Less: return a.hi < b.lo;
    case Op::LessEq: return a.hi <= b.lo;
    case Op::Greater: return a.lo > b.hi;
    case Op::GreaterEq: return a.lo >= b.hi;
    default: return false;
  }
}

// Whether `s` is an op of two FLOAT operands (a comparison, when its result is BOOL).
bool on_two_floats(const Stmt* s) {
  return s && s->kind == StmtKind::Op && s->args.size() == 2 &&
         operand_type(*s, 0) == VarType::Float && operand_type(*s, 1) == VarType::Float;
}

// The intervals of a function's FLOAT variables (single assignment: a fact wherever it is read),
// and the counts that can only be 0, found in one walk in program order.
class Analysis {
 public:
  explicit Analysis(const Module& module) : module_(module) {}

  std::unordered_set<VarId> zero_counts(const Function& f, const EntryFacts& entry) {
    entry.assume(f, facts_);
    walk(f.body);
    return std::move(zero_);
  }

 private:
  void walk(const Block& block) {
    for (const Stmt& s : block.stmts) {
      for (const Block& b : s.branches) {
        const std::size_t mark = facts_.mark();
        walk(b);
        facts_.rollback(mark);
      }
      if (s.kind == StmtKind::Op && s.results.size() == 1) {
        if (result_type(s, 0) == VarType::Float) {
          if (const auto interval = result_of(s)) interval_[s.results[0]] = *interval;
        }
        if (counts_nothing(s) && facts_.checks_hold(s)) zero_.insert(s.results[0]);
      }
      facts_.learn(s);
      for (VarId r : s.results) def_[r] = &s;
    }
  }

  const Stmt* def(VarId v) const {
    auto it = def_.find(v);
    return it == def_.end() ? nullptr : it->second;
  }
  Interval interval(VarId v) const {
    auto it = interval_.find(v);
    return it == interval_.end() ? kAnything : it->second;
  }

  // +_REDUCE INT of B_TO_I of a FLOAT comparison false everywhere, or of NOT of one true
  // everywhere (NESL's check that rand's bound is positive), over a known descriptor (so that
  // LENGTHS of it can fail no more than the reduction could).
  bool counts_nothing(const Stmt& s) const {
    if (s.op != Op::PlusReduce || operand_type(s, 0) != VarType::Int || s.args.size() != 2 ||
        module_.var_types[s.args[1]] != VarType::Segdes)
      return false;
    const Stmt* flags = def(s.args[0]);
    if (!is_op(flags, Op::BoolToInt) || flags->args.size() != 1) return false;
    const Stmt* test = def(flags->args[0]);
    const bool negated = is_op(test, Op::Not) && test->args.size() == 1 &&
                         operand_type(*test, 0) == VarType::Bool;
    if (negated) test = def(test->args[0]);
    if (!on_two_floats(test)) return false;
    const Interval a = interval(test->args[0]), b = interval(test->args[1]);
    return negated ? always_true(test->op, a, b) : never_true(test->op, a, b);
  }

  // The interval of a FLOAT op's results, where the analysis knows the op.
  std::optional<Interval> result_of(const Stmt& s) const {
    auto arg = [&](std::size_t k) { return interval(s.args[k]); };
    switch (s.op) {
      case Op::Const: {
        const std::vector<double>& v = s.constant.floats;
        if (v.empty()) return std::nullopt;
        Interval i{kInf, -kInf, false};
        for (double x : v) {
          if (std::isnan(x)) {
            i.nan = true;
          } else {
            i.lo = std::min(i.lo, x);
            i.hi = std::max(i.hi, x);
          }
        }
        if (i.lo > i.hi) return std::nullopt;  // NaNs only
        return i;  // exact: a constant is what it says
      }
      case Op::Dist: return arg(0);
      case Op::Add: return add(arg(0), arg(1));
      case Op::Sub: return subtract(arg(0), arg(1));
      case Op::Mul: return multiply(arg(0), arg(1));
      case Op::Div: return divide(arg(0), arg(1));
      case Op::Sqrt: return square_root(arg(0));
      case Op::Exp: return Interval{0, kInf, arg(0).nan};
      case Op::Select: return absolute_value(s).value_or(either(arg(1), arg(2)));
      default: return std::nullopt;
    }
  }

  // SELECT (> x 0) x (- 0 x), and the same with >=, or with < or <= and the branches swapped:
  // |x|, never below 0 (NaN where x is).
  std::optional<Interval> absolute_value(const Stmt& s) const {
    const Stmt* test = def(s.args[0]);
    if (!on_two_floats(test) || !interval(test->args[1]).exactly_zero()) return std::nullopt;
    const VarId x = test->args[0];
    const bool positive_first = test->op == Op::Greater || test->op == Op::GreaterEq;
    const bool negative_first = test->op == Op::Less || test->op == Op::LessEq;
    if (!positive_first && !negative_first) return std::nullopt;
    const VarId kept = positive_first ? s.args[1] : s.args[2];
    const Stmt* negated = def(positive_first ? s.args[2] : s.args[1]);
    if (kept != x || !is_op(negated, Op::Sub) || !on_two_floats(negated) ||
        negated->args[1] != x || !interval(negated->args[0]).exactly_zero())
      return std::nullopt;
    const Interval i = interval(x);
    return Interval{0, std::max(i.hi, -i.lo), i.nan};
  }

  const Module& module_;
  LengthFacts facts_;
  std::unordered_map<VarId, const Stmt*> def_;
  std::unordered_map<VarId, Interval> interval_;
  std::unordered_set<VarId> zero_;
};

// Each count in `zero` becomes LENGTHS of its descriptor minus itself: 0 in every segment.
void rewrite(Block& block, const std::unordered_set<VarId>& zero, Module& module) {
  std::vector<Stmt> stmts;
  stmts.reserve(block.stmts.size());
  for (Stmt& s : block.stmts) {
    for (Block& b : s.branches) rewrite(b, zero, module);
    if (s.kind == StmtKind::Op && s.results.size() == 1 && zero.contains(s.results[0])) {
      Stmt lengths;
      lengths.kind = StmtKind::Op;
      lengths.op = Op::Lengths;
      lengths.args = {s.args[1]};
      lengths.results = {module.new_var(VarType::Int)};
      lengths.where = s.where;
      s.op = Op::Sub;
      s.type = TypeKeyword::Int;
      s.args = {lengths.results[0], lengths.results[0]};
      stmts.push_back(std::move(lengths));
    }
    stmts.push_back(std::move(s));
  }
  block.stmts = std::move(stmts);
}

}  // namespace

void ranges(Module& module, const PassOptions&) {
  const EntryFacts entry(module);
  for (Function& f : module.functions) {
    if (!f.lifted) continue;
    const std::unordered_set<VarId> zero = Analysis(module).zero_counts(f, entry);
    if (!zero.empty()) rewrite(f.body, zero, module);
  }
}

}  // namespace fopt
