// NESL's max_index and min_index (vcode/superop_arg_reduce.hpp) in one pass over the values: per
// segment, the running extreme, the fold of the INDEX values at the elements equal to it, and
// whether some element is not. A segment holding a FLOAT NaN is folded as the stages would fold
// it: the extreme first (a NaN restarts MAX and MIN), then the positions equal to it. With a team
// of threads the stages run instead, each of them parallel.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "cvl/scalar_semantics.hpp"
#include "cvl/staged_superop.hpp"
#include "fused/fused.hpp"
#include "vcode/superop_arg_reduce.hpp"
#include "vcode/superop_stages.hpp"

namespace cvl::cpu {
namespace {

using I32 = std::int32_t;
using NodeKind = vcode::SuperOpNode::Kind;

class ArgReducePlan final : public PreparedSuperOp {
 public:
  ArgReducePlan(const Context& ctx, Backend& backend, const vcode::SuperOp& op,
                const vcode::ArgReduceShape& shape_, vcode::SuperOpStage values_)
      : PreparedSuperOp(op),
        shape(shape_),
        values(std::move(values_)),
        values_plan(values.op.root().kind == NodeKind::Operand ? nullptr
                                                               : prepare_fused(ctx, values.op)),
        staged(backend, op) {}

  const vcode::ArgReduceShape shape;
  const vcode::SuperOpStage values;  // the x whose extreme is taken, as a definition
  const std::unique_ptr<PreparedSuperOp> values_plan;  // null: x is an operand
  const StagedSuperOp staged;
};

// A per-segment INT of the definition: an operand read per segment, or a constant.
struct SegmentInt {
  const I32* values = nullptr;  // one per segment; null: `constant`
  I32 constant = 0;
  I32 operator[](std::size_t k) const { return values ? values[k] : constant; }
};

SegmentInt segment_int(const vcode::SuperOp& op, std::uint32_t node,
                       std::span<FusedOperand> operands) {
  const vcode::SuperOpNode& n = op.nodes[node];
  if (n.kind == NodeKind::Operand) return {elements<I32>(operands[n.operand].vector), 0};
  return {nullptr, n.int_value};
}

template <class T, class Extreme, class Fold>
struct SegmentFolder {
  const T* x;
  SegmentInt start, stride, otherwise;

  static bool beyond(T a, T b) {  // a is past b in the direction of the extreme
    if constexpr (std::is_same_v<Extreme, cvl_sem::Max>) return a > b;
    else return a < b;
  }
  I32 position_value(std::size_t k, std::size_t pos) const {
    return cvl_sem::index_value(start[k], stride[k], static_cast<std::uint32_t>(pos));
  }

  // Segment k, elements [lo, hi).
  I32 fold(std::size_t k, std::size_t lo, std::size_t hi) const {
    constexpr std::size_t kRun = 64;
    T best = Extreme::identity(T{});
    I32 at_best = Fold::identity(I32{});
    bool elsewhere = false;
    for (std::size_t j = lo; j < hi;) {
      const std::size_t end = std::min(hi, j + kRun);
      // The run's extreme, and whether it holds a NaN, in a loop that vectorizes.
      T run = x[j];
      bool nan = false;
      for (std::size_t i = j; i < end; ++i) {
        run = beyond(x[i], run) ? x[i] : run;
        if constexpr (std::is_floating_point_v<T>) nan |= x[i] != x[i];
      }
      if (nan) return staged_fold(k, lo, hi);
      if (beyond(best, run)) {
        elsewhere = true;
      } else {
        for (std::size_t i = j; i < end; ++i) {
          if (beyond(x[i], best)) {
            best = x[i];
            at_best = Fold::apply(Fold::identity(I32{}), position_value(k, i - lo));
            elsewhere = elsewhere || i > lo;
          } else if (x[i] == best) {
            at_best = Fold::apply(at_best, position_value(k, i - lo));
          } else {
            elsewhere = true;
          }
        }
      }
      j = end;
    }
    return elsewhere ? Fold::apply(at_best, otherwise[k]) : at_best;
  }

  // As the stages: the extreme folded from its identity in order, then the positions.
  I32 staged_fold(std::size_t k, std::size_t lo, std::size_t hi) const {
    T extreme = Extreme::identity(T{});
    for (std::size_t i = lo; i < hi; ++i) extreme = Extreme::apply(extreme, x[i]);
    I32 r = Fold::identity(I32{});
    for (std::size_t i = lo; i < hi; ++i)
      r = Fold::apply(r, x[i] == extreme ? position_value(k, i - lo) : otherwise[k]);
    return r;
  }
};

template <class T, class Extreme, class Fold>
void fold_segments(const T* x, const ArgReducePlan& plan, std::span<FusedOperand> operands,
                   const SegmentView& sd, I32* out) {
  const vcode::SuperOp& op = plan.definition;
  const vcode::SuperOpNode& index = op.nodes[plan.shape.index];
  const vcode::SuperOpNode& otherwise = op.nodes[plan.shape.otherwise];
  // o is a DIST of a leaf or a constant: either way the leaf's value per segment.
  const std::uint32_t o =
      otherwise.kind == NodeKind::Dist ? otherwise.args[0] : plan.shape.otherwise;
  const SegmentFolder<T, Extreme, Fold> folder{x, segment_int(op, index.args[0], operands),
                                               segment_int(op, index.args[1], operands),
                                               segment_int(op, o, operands)};
  for (std::size_t k = 0; k < sd.segments; ++k) out[k] = folder.fold(k, sd.start(k), sd.start(k + 1));
}

}  // namespace

std::unique_ptr<PreparedSuperOp> prepare_arg_reduce(const Context& ctx, Backend& backend,
                                                    const vcode::SuperOp& op) {
  const std::optional<vcode::ArgReduceShape> shape = vcode::arg_reduce_shape(op);
  if (!shape) return nullptr;
  vcode::SuperOpStage values = vcode::subtree_definition(op, shape->values);
  // x must read an operand (a constant x has no length of its own): else the stages run.
  if (values.inputs.empty()) return nullptr;
  return std::make_unique<ArgReducePlan>(ctx, backend, op, *shape, std::move(values));
}

Vector arg_reduce(const Context& ctx, Backend& backend, const PreparedSuperOp& prepared,
                  std::span<FusedOperand> operands, std::size_t domain) {
  const auto* plan = static_cast<const ArgReducePlan*>(&prepared);
  if (ctx.par.team_for(domain, kMemoryBoundThreshold) > 1)
    return plan->staged.run(backend, operands, domain);
  // x: the operand itself, or its expression computed once.
  Vector x;
  if (!plan->values_plan) {
    x = operands[plan->values.inputs[0]].vector;
  } else {
    std::vector<FusedOperand> given;
    for (std::uint32_t k : plan->values.inputs) given.push_back(operands[k]);
    x = fused(ctx, *plan->values_plan, given, domain);
  }
  const SegmentView sd = view(operands[plan->shape.segdes].segdes);
  Vector out = allocate(Type::Int, sd.segments);
  I32* o = elements<I32>(out);
  auto with_extreme = [&]<class T>() {
    const T* values = elements<T>(x);
    auto with_fold = [&]<class Extreme>() {
      if (plan->shape.fold == vcode::Op::MinReduce)
        fold_segments<T, Extreme, cvl_sem::Min>(values, *plan, operands, sd, o);
      else
        fold_segments<T, Extreme, cvl_sem::Max>(values, *plan, operands, sd, o);
    };
    if (plan->shape.extreme == vcode::Op::MaxReduce)
      with_fold.template operator()<cvl_sem::Max>();
    else
      with_fold.template operator()<cvl_sem::Min>();
  };
  if (plan->shape.type == vcode::TypeKeyword::Float)
    with_extreme.template operator()<double>();
  else
    with_extreme.template operator()<I32>();
  return out;
}

}  // namespace cvl::cpu
