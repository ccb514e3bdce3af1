// The op families of cvl-cpu, one source file each. backend.cpp forwards here (asserting the shape
// rules in debug builds); these functions check only what depends on the data (indices, divisors,
// lengths).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <utility>

#include "cvl/backend.hpp"
#include "threads/parallel.hpp"
#include "memory/storage.hpp"

namespace cvl::cpu {

struct Context {
  Parallel par;
  FloatRankOrder float_rank = FloatRankOrder::Correct;
  bool fast_math = false;  // transcendentals from vector_math.hpp (BackendOptions::fast_math)
  bool lazy = false;  // long elementwise results computed when read (lazy_elementwise.hpp)
  // What this backend's vectors may hold (--max-memory), charged by every operation it runs
  // (MemoryScope); never null in a backend's context.
  std::shared_ptr<MemoryBudget> memory = std::make_shared<MemoryBudget>();
};

Vector elementwise(const Context& ctx, vcode::Op op, Type type, std::span<Vector> operands);
Vector random(const Context& ctx, Vector bounds, RandomStream& stream);
// RAND's values: the next `n` draws of `stream`, each reduced by its bound (`bounds[i]`, or
// `bound` for all when bounds is null; none is 0).
void draw_random(std::int32_t* result, std::size_t n, const std::int32_t* bounds,
                 std::int32_t bound, RandomStream& stream);

Vector scan(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd);
Vector reduce(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd);

Vector permute(const Context& ctx, vcode::Op op, PermuteOperands&& operands);
// `length` when every element of `indices` (INT), read as unsigned, is below it, which is then
// recorded (Buffer::indices_below); else nothing (the op that reads them reports the bad one).
std::optional<std::uint32_t> check_indices_below(const Parallel& par, const Vector& indices,
                                                 std::size_t length);

Vector extract(const Context& ctx, Vector v, Vector indices, const SegmentView& sd);
Vector replace(const Context& ctx, Vector v, Vector indices, Vector values, const SegmentView& sd);
// `descriptor`: the handle `sd` views, kept by a result described instead of written
// (SegmentValues).
Vector distribute(const Context& ctx, Vector values, const SegmentView& sd,
                  const Segdes& descriptor);
// INDEX; pending where ctx.lazy and long (lazy_index), `descriptor` the handle `sd` views.
Vector index(const Context& ctx, Vector starts, Vector strides, const SegmentView& sd,
             const Segdes& descriptor);

Vector rank(const Context& ctx, vcode::Op op, Vector v, const SegmentView& sd);
std::pair<Vector, Segdes> pack(const Context& ctx, Vector v, Vector flags, const SegmentView& sd);

// FUSED (fused.cpp): a superoperator planned once, then evaluated over operands that obey its
// length rules (the interpreter checked them).
// `outputs`: nodes of an elementwise definition also written out (fused_outputs).
std::unique_ptr<PreparedSuperOp> prepare_fused(const Context& ctx, const vcode::SuperOp& op,
                                               std::vector<std::uint32_t> outputs = {});
Vector fused(const Context& ctx, const PreparedSuperOp& op, std::span<FusedOperand> operands,
             std::size_t domain);
// NESL's max_index and min_index in one pass (arg_reduce.cpp): a plan for a definition of
// vcode/superop_arg_reduce.hpp's shape (else null), and its evaluation (`op` one of those plans).
// `backend` runs the stages instead when a team of threads would pay.
std::unique_ptr<PreparedSuperOp> prepare_arg_reduce(const Context& ctx, Backend& backend,
                                                    const vcode::SuperOp& op);
Vector arg_reduce(const Context& ctx, Backend& backend, const PreparedSuperOp& op,
                  std::span<FusedOperand> operands, std::size_t domain);
// An elementwise superoperator prepared with outputs, in one pass: the values of each output
// node, in order, then the root's.
std::vector<Vector> fused_outputs(const Context& ctx, const PreparedSuperOp& op,
                                  std::span<FusedOperand> operands, std::size_t domain);
// The values of a pending expression that maps (lazy_elementwise.hpp), a block at a time on this
// thread, none of them stored (a permute's indices or values, read where it uses them).
class PendingBlocks {
 public:
  explicit PendingBlocks(LazyExpression& expression);
  ~PendingBlocks();
  PendingBlocks(const PendingBlocks&) = delete;
  PendingBlocks& operator=(const PendingBlocks&) = delete;

  // The most elements one call of values() gives.
  std::size_t block() const;
  // Elements [lo, hi) (at most block() of them), element j at values[j - lo]; valid until the
  // next call. Blocks in increasing order cost least.
  const void* values(std::size_t lo, std::size_t hi);

 private:
  struct Evaluator;
  std::unique_ptr<Evaluator> evaluator_;
};

// "OP: index I at position P is outside its segment of length L"
[[noreturn]] void throw_index_fault(vcode::Op op, const IndexFault& fault);

}  // namespace cvl::cpu
