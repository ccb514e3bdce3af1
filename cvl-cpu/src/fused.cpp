// FCODE superoperators (vcode/superop.hpp) in one pass: the node array is compiled to one
// kernel per node (fused_kernels.hpp), and the expression is evaluated over blocks of kBlock
// elements, each node's values for the block in a small buffer that stays in cache. Blocks are
// shared between threads like the other ops. DIST and INDEX leaves read their per-segment values
// through the descriptor's offsets, never through a full-length vector. A reduction or scan at
// the root folds the block values as they are made, in the order scan_reduce.cpp uses, so the
// results are identical to the unfused program's at any thread count.
#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "cvl/scalar_semantics.hpp"
#include "families.hpp"
#include "combine.hpp"
#include "fused_kernels.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using vcode::SuperOp;
using vcode::SuperOpNode;
using NodeKind = SuperOpNode::Kind;
using I32 = std::int32_t;
using F64 = double;
using B8 = std::uint8_t;

// Elements per block: 1024 * 8 bytes per node keeps a few dozen nodes' buffers within L2 (512 to
// 8192 measured the same within noise, bench/RESULTS.md).
constexpr std::size_t kBlock = 1024;

// ---- The compiled expression.

// A DIST value or INDEX start/stride: a constant, or element k of a per-segment operand.
struct Leaf {
  const void* data = nullptr;  // per-segment values; nullptr: the constant
  I32 int_value = 0;
  F64 float_value = 0;

  template <class T>
  T at(std::size_t k) const {
    if (data) return static_cast<const T*>(data)[k];
    if constexpr (std::is_same_v<T, F64>) return float_value;
    else return static_cast<T>(int_value);
  }
};

struct NodePlan {
  NodeKind kind = NodeKind::Operand;
  Type type = Type::Int;             // of the values this node produces
  std::uint8_t arity = 0;
  std::uint32_t args[3] = {0, 0, 0};
  Kernel kernel = nullptr;           // Elementwise
  bool checks_division = false;      // INT / and %: divisors are checked before the kernel runs
  const std::byte* operand = nullptr;  // Operand read at element j: its elements
  Leaf leaves[2];                    // Dist: [value]; Index: [start, stride]
  const SegView* segments = nullptr; // Dist, Index: the descriptor
};

// The lowest position where an INT division trapped, and how.
struct DivisionFault {
  std::size_t position = std::numeric_limits<std::size_t>::max();
  bool by_zero = false;

  bool found() const { return position != std::numeric_limits<std::size_t>::max(); }
  void keep_lowest(const DivisionFault& other) {
    if (other.found() && other.position < position) *this = other;
  }
  [[noreturn]] void raise() const {
    throw Error(cvl_sem::trap_message(cvl_sem::trap_word(position, by_zero ? 0 : -1)));
  }
};

struct Plan {
  std::vector<vcode::OperandUse> uses;  // per operand
  std::vector<NodePlan> nodes;
  std::vector<SegView> views;  // per operand; empty views for vectors
  std::uint32_t values_node = 0;  // the node whose values blocks produce (the root or its input)
  std::size_t domain = 0;
  std::size_t threshold = kMemoryBoundThreshold;
};

void require_shape(bool ok, const char* what, const Vector& v, std::size_t length) {
  if (!ok)
    throw InternalError(std::string("FUSED: ") + what + " is " + type_name(v.type) + " of length " +
                std::to_string(v.length) + ", expected length " + std::to_string(length));
}

// Checks the operands against the definition (the interpreter has; a mismatch here would read
// out of bounds) and resolves every node to its kernel and data.
Plan compile(const SuperOp& op, std::span<FusedOperand> operands, std::size_t domain) {
  Plan plan;
  plan.domain = domain;
  plan.uses = vcode::operand_uses(op);
  plan.views.resize(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const vcode::OperandUse& use = plan.uses[k];
    if (op.operands[k] == vcode::TypeKeyword::Segdes) {
      plan.views[k] = view(operands[k].segdes);
      if (use.segdes && plan.views[k].total != domain)
        throw InternalError("FUSED: a segment descriptor describes " +
                            std::to_string(plan.views[k].total) + " elements, the domain has " +
                            std::to_string(domain));
      continue;
    }
    const Vector& v = operands[k].vector;
    require_shape(v.type == to_type(op.operands[k]), "an operand", v, v.length);
    if (use.elementwise) require_shape(v.length == domain, "an operand", v, domain);
    for (std::uint32_t s : use.per_segment_of)
      require_shape(v.length == operands[s].segdes.segments, "a per-segment operand", v,
                    operands[s].segdes.segments);
  }
  plan.nodes.resize(op.nodes.size());
  const SuperOpNode& root = op.root();
  plan.values_node = static_cast<std::uint32_t>(op.nodes.size() - 1);
  if (root.kind == NodeKind::Scan || root.kind == NodeKind::Reduce) plan.values_node = root.args[0];
  // Operand nodes read at element j (not DIST/INDEX leaves, not descriptors).
  std::vector<bool> read_at_element(op.nodes.size(), false);
  read_at_element[plan.values_node] = true;
  for (const SuperOpNode& n : op.nodes)
    if (n.kind == NodeKind::Elementwise)
      for (std::uint8_t a = 0; a < n.arity; ++a) read_at_element[n.args[a]] = true;
  auto leaf = [&](std::uint32_t node) {
    const SuperOpNode& n = op.nodes[node];
    Leaf l;
    if (n.kind == NodeKind::Operand) l.data = elements<std::byte>(operands[n.operand].vector);
    l.int_value = n.int_value;
    l.float_value = n.float_value;
    return l;
  };
  for (std::size_t i = 0; i < op.nodes.size(); ++i) {
    const SuperOpNode& n = op.nodes[i];
    NodePlan& p = plan.nodes[i];
    p.kind = n.kind;
    p.type = to_type(n.result);
    p.arity = n.arity;
    std::copy(std::begin(n.args), std::end(n.args), std::begin(p.args));
    switch (n.kind) {
      case NodeKind::Operand:
        if (read_at_element[i] && op.operands[n.operand] != vcode::TypeKeyword::Segdes)
          p.operand = elements<std::byte>(operands[n.operand].vector);
        break;
      case NodeKind::Constant:
        break;
      case NodeKind::Elementwise:
        p.kernel = kernel_for(n.op, to_type(n.type));
        p.checks_division = (n.op == Op::Div || n.op == Op::Mod) && n.type == vcode::TypeKeyword::Int;
        if (vcode::info(n.op).cost == vcode::Cost::Compute) plan.threshold = kComputeBoundThreshold;
        break;
      case NodeKind::Dist:
        p.leaves[0] = leaf(n.args[0]);
        p.segments = &plan.views[op.nodes[n.args[1]].operand];
        break;
      case NodeKind::Index:
        p.leaves[0] = leaf(n.args[0]);
        p.leaves[1] = leaf(n.args[1]);
        p.segments = &plan.views[op.nodes[n.args[2]].operand];
        break;
      case NodeKind::Scan:
      case NodeKind::Reduce:
        break;
    }
  }
  return plan;
}


// One thread's evaluator: a buffer per node, and the division faults it met.
class Frame {
 public:
  Frame(const Plan& plan, const SuperOp& op)
      : plan_(plan),
        block_(std::min(kBlock, std::max<std::size_t>(plan.domain, 1))),
        scratch_(block_ * plan.nodes.size()),
        values_(plan.nodes.size()) {
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
      const SuperOpNode& n = op.nodes[i];
      if (n.kind != NodeKind::Constant) continue;
      void* buffer = slot(i);
      switch (plan.nodes[i].type) {
        case Type::Int: std::fill_n(static_cast<I32*>(buffer), block_, n.int_value); break;
        case Type::Float: std::fill_n(static_cast<F64*>(buffer), block_, n.float_value); break;
        case Type::Bool: std::fill_n(static_cast<B8*>(buffer), block_, B8(n.int_value != 0)); break;
      }
      values_[i] = buffer;
    }
  }

  std::size_t block() const { return block_; }
  const DivisionFault& fault() const { return fault_; }

  // Evaluates [lo, hi) (at most block() elements) and returns the values of plan.values_node,
  // written to `out` when given (the result's elements lo..hi), else to that node's buffer.
  const void* evaluate(std::size_t lo, std::size_t hi, void* out) {
    const std::size_t n = hi - lo;
    const std::size_t last = plan_.values_node;
    for (std::size_t i = 0; i <= last; ++i) {
      const NodePlan& p = plan_.nodes[i];
      void* target = i == last && out ? out : slot(i);
      switch (p.kind) {
        case NodeKind::Operand:
          if (!p.operand) break;  // a descriptor or a DIST/INDEX leaf: read per segment
          values_[i] = p.operand + lo * element_size(p.type);
          if (i == last && out) std::copy_n(static_cast<const std::byte*>(values_[i]),
                                            n * element_size(p.type), static_cast<std::byte*>(out));
          continue;
        case NodeKind::Constant:  // its buffer was filled once
          if (i == last && out) std::copy_n(static_cast<const std::byte*>(values_[i]),
                                            n * element_size(p.type), static_cast<std::byte*>(out));
          continue;
        case NodeKind::Elementwise: {
          const void* in[3] = {values_[p.args[0]], values_[p.args[1]], values_[p.args[2]]};
          if (p.checks_division) check_divisors(lo, n, in);
          p.kernel(n, in, target);
          break;
        }
        case NodeKind::Dist:
          with_element_bits(p.type, [&]<class Bits>() {
            distribute<Bits>(p, lo, hi, static_cast<Bits*>(target));
          });
          break;
        case NodeKind::Index:
          index(p, lo, hi, static_cast<I32*>(target));
          break;
        case NodeKind::Scan:
        case NodeKind::Reduce:
          break;  // the root's fold is the caller's
      }
      values_[i] = target;
    }
    return values_[last];
  }

 private:
  void* slot(std::size_t node) { return scratch_.data() + node * block_; }

  void check_divisors(std::size_t lo, std::size_t n, const void* const* in) {
    const I32* a = static_cast<const I32*>(in[0]);
    const I32* b = static_cast<const I32*>(in[1]);
    bool traps = false;
    for (std::size_t i = 0; i < n; ++i) traps |= cvl_sem::divisor_traps(a[i], b[i]);
    if (!traps) return;
    for (std::size_t i = 0; i < n; ++i)
      if (cvl_sem::divisor_traps(a[i], b[i])) {
        fault_.keep_lowest({lo + i, b[i] == 0});
        return;
      }
  }

  template <class Bits>
  void distribute(const NodePlan& p, std::size_t lo, std::size_t hi, Bits* out) {
    const SegView& sd = *p.segments;
    const Leaf& value = p.leaves[0];
    if (!value.data) {  // a constant: the same bits everywhere
      Bits bits;
      if constexpr (sizeof(Bits) == 8) bits = std::bit_cast<Bits>(value.float_value);
      else bits = static_cast<Bits>(value.int_value);
      std::fill(out, out + (hi - lo), bits);
      return;
    }
    const Bits* values = static_cast<const Bits*>(value.data);
    for (std::size_t k = sd.segment_of(lo), pos = lo; pos < hi; ++k) {
      const std::size_t end = std::min(sd.start(k + 1), hi);
      std::fill(out + (pos - lo), out + (end - lo), values[k]);
      pos = end;
    }
  }

  void index(const NodePlan& p, std::size_t lo, std::size_t hi, I32* out) {
    const SegView& sd = *p.segments;
    for (std::size_t k = sd.segment_of(lo), pos = lo; pos < hi; ++k) {
      const std::size_t end = std::min(sd.start(k + 1), hi);
      const I32 start = p.leaves[0].at<I32>(k), stride = p.leaves[1].at<I32>(k);
      const auto first = static_cast<std::uint32_t>(pos - sd.start(k));
      const auto count = static_cast<std::uint32_t>(end - pos);
      I32* piece = out + (pos - lo);
      for (std::uint32_t t = 0; t < count; ++t)
        piece[t] = cvl_sem::index_value(start, stride, first + t);
      pos = end;
    }
  }

  const Plan& plan_;
  std::size_t block_;
  Scratch<F64> scratch_;  // F64 slots: wide enough for every element type
  std::vector<const void*> values_;
  DivisionFault fault_;
};

// Runs `body(frame, lo, hi)` over [0, domain) in blocks, on the team elementwise ops would use;
// throws the lowest division fault.
template <class Body>
void for_each_block(const Parallel& par, const Plan& plan, const SuperOp& op, Body&& body) {
  auto run = [&](std::size_t begin, std::size_t end, DivisionFault& fault) {
    Frame frame(plan, op);
    for (std::size_t lo = begin; lo < end; lo += frame.block())
      body(frame, lo, std::min(lo + frame.block(), end));
    fault = frame.fault();
  };
  DivisionFault fault;
  if (par.team_for(plan.domain, plan.threshold) <= 1) {  // no OpenMP at all for short vectors
    run(0, plan.domain, fault);
  } else {
    parallel_for(par, plan.domain, plan.threshold, [&](std::size_t begin, std::size_t end) {
      DivisionFault mine;
      run(begin, end, mine);
#pragma omp critical(cvl_cpu_fused_fault)
      fault.keep_lowest(mine);
    });
  }
  if (fault.found()) fault.raise();
}

// The result vector: an operand read only elementwise, unshared and of the right shape, is
// overwritten in place (each element is read before it is written, in the same block).
Vector result_vector(const SuperOp& op, const Plan& plan, std::span<FusedOperand> operands,
                     Type type, std::size_t length) {
  const std::vector<vcode::OperandUse>& uses = plan.uses;
  for (std::size_t k = 0; k < operands.size(); ++k)
    if (uses[k].elementwise && uses[k].per_segment_of.empty() &&
        op.operands[k] != vcode::TypeKeyword::Segdes &&
        reusable(operands[k].vector, type, length))
      return std::move(operands[k].vector);
  return allocate(type, length);
}

Vector map(const Context& ctx, const SuperOp& op, std::span<FusedOperand> operands,
           const Plan& plan) {
  const Type type = plan.nodes[plan.values_node].type;
  Vector out = result_vector(op, plan, operands, type, plan.domain);
  std::byte* o = elements<std::byte>(out);
  const std::size_t size = element_size(type);
  for_each_block(ctx.par, plan, op, [&](Frame& frame, std::size_t lo, std::size_t hi) {
    frame.evaluate(lo, hi, o + lo * size);
  });
  return out;
}

// ---- Reduce and scan roots.

// Folds the values of one segment piece into its running result. Whole segments fold left to
// right like scan_reduce.cpp's fold; a segment cut by a thread boundary folds like its
// fold_threaded (four lanes for FLOAT + and *), fed in runs: lane j takes the elements at
// offsets 4m + j from the cut piece's start, the last (length mod 4) elements go to lane 0.
template <class C>
struct Accumulator {
  using T = typename C::value_type;
  static constexpr bool kLanes = kRegroupingRounds<C>;

  T acc = C::identity;
  T lane[4] = {C::identity, C::identity, C::identity, C::identity};
  bool cut = false;    // the piece is part of a segment that crosses a thread boundary
  bool lanes = false;  // ... and folds in four lanes
  std::size_t piece_lo = 0, lanes_end = 0;  // lanes: elements below lanes_end go to the lanes

  void start(bool is_cut, std::size_t lo, std::size_t hi) {
    acc = C::identity;
    cut = is_cut;
    lanes = is_cut && kLanes;
    if (lanes) {
      std::fill(std::begin(lane), std::end(lane), C::identity);
      piece_lo = lo;
      lanes_end = lo + (hi - lo) / 4 * 4;
    }
  }
  // Elements [pos, pos + n) of the piece, `x` pointing at the one at pos. Returns false when a
  // cut FLOAT MAX/MIN piece holds a NaN: grouping then changes the result (scan_reduce.cpp).
  bool add(const T* x, std::size_t pos, std::size_t n) {
    if (!lanes) {
      T a = acc;
      for (std::size_t i = 0; i < n; ++i) a = C::apply(a, x[i]);
      acc = a;
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        std::size_t at = pos + i;
        std::size_t l = at < lanes_end ? (at - piece_lo) & 3 : 0;
        lane[l] = C::apply(lane[l], x[i]);
      }
    }
    if constexpr (kNanSensitive<C>) {
      if (cut) {
        bool nan = false;
        for (std::size_t i = 0; i < n; ++i) nan |= x[i] != x[i];
        return !nan;
      }
    }
    return true;
  }
  T finish() const {
    if (!lanes) return acc;
    return C::apply(C::identity, C::apply(C::apply(lane[0], lane[1]), C::apply(lane[2], lane[3])));
  }
};

// Folds one thread's part of the domain segment by segment, evaluating it block by block:
// first its head (the rest of a segment begun in an earlier part), then every segment starting
// in it, the last one clipped at the part's end. Calls done(segment, value, is_head) for each,
// in order, empty segments included. Returns false when the result needs the sequential fold.
template <class C, class Done>
bool fold_part(Frame& frame, const SegView& sd, const Part& p, Done&& done) {
  using T = typename C::value_type;
  bool head = p.has_head();
  std::size_t k = head ? p.first - 1 : p.first;
  auto piece_end = [&](std::size_t s) { return std::min(sd.start(s + 1), p.end); };
  Accumulator<C> acc;
  auto begin_segment = [&] {
    if (k < p.last) acc.start(head || sd.start(k + 1) > p.end, head ? p.begin : sd.start(k), piece_end(k));
  };
  auto finish_segment = [&] {
    done(k, acc.finish(), head);
    head = false;
    ++k;
    begin_segment();
  };
  begin_segment();
  bool exact = true;
  for (std::size_t lo = p.begin; lo < p.end; lo += frame.block()) {
    const std::size_t hi = std::min(lo + frame.block(), p.end);
    const T* x = static_cast<const T*>(frame.evaluate(lo, hi, nullptr)) - lo;
    std::size_t pos = lo;
    while (true) {
      while (k < p.last && piece_end(k) <= pos) finish_segment();
      if (pos == hi) break;
      // Segments that start here and end inside the block (so are not cut) fold in a tight loop.
      if (!head && pos == sd.start(k) && sd.start(k + 1) <= hi) {
        for (; k < p.last && sd.start(k + 1) <= hi; ++k) {
          T a = C::identity;
          for (std::size_t i = sd.start(k); i < sd.start(k + 1); ++i) a = C::apply(a, x[i]);
          done(k, a, false);
        }
        begin_segment();
        pos = std::min(sd.start(k), hi);
        continue;
      }
      const std::size_t end = std::min(piece_end(k), hi);
      exact &= acc.add(x + pos, pos, end - pos);
      pos = end;
    }
  }
  while (k < p.last) finish_segment();
  return exact;
}

template <class C>
Vector reduce_typed(const Context& ctx, const SuperOp& op, const Plan& plan, const SegView& sd,
                    bool sequential) {
  using T = typename C::value_type;
  Vector out = allocate(type_of<T>(), sd.segments);
  T* result = elements<T>(out);
  const int team = sequential ? 1 : ctx.par.team_for(plan.domain, kMemoryBoundThreshold);
  if (team <= 1) {
    Frame frame(plan, op);
    fold_part<C>(frame, sd, whole_part(sd), [&](std::size_t k, T value, bool) { result[k] = value; });
    if (frame.fault().found()) frame.fault().raise();
    return out;
  }
  // As scan_reduce.cpp: each part reduces the segments starting in it; the heads (continuations
  // of a segment begun in an earlier part) are combined afterwards in part order.
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  std::vector<T> head(static_cast<std::size_t>(team));
  std::vector<std::size_t> head_segment(static_cast<std::size_t>(team), none);
  std::atomic<bool> inexact{false};
  DivisionFault fault;
#pragma omp parallel num_threads(team)
  {
    const auto self = static_cast<std::size_t>(omp_get_thread_num());
    Frame frame(plan, op);
    bool exact = fold_part<C>(frame, sd, make_part(sd, omp_get_thread_num(), omp_get_num_threads()),
                              [&](std::size_t k, T value, bool is_head) {
                                if (!is_head) {
                                  result[k] = value;
                                  return;
                                }
                                head[self] = value;
                                head_segment[self] = k;
                              });
    if (!exact) inexact.store(true, std::memory_order_relaxed);
#pragma omp critical(cvl_cpu_fused_fault)
    fault.keep_lowest(frame.fault());
  }
  if (fault.found()) fault.raise();
  if (inexact.load()) return reduce_typed<C>(ctx, op, plan, sd, true);
  for (std::size_t t = 1; t < head.size(); ++t)
    if (head_segment[t] != none)
      result[head_segment[t]] = C::apply(result[head_segment[t]], head[t]);
  return out;
}

// One thread: the values and their exclusive scan in the same pass, each segment from the
// identity, left to right (scan_reduce.cpp's scan_sequential).
template <class C>
Vector scan_sequential(const SuperOp& op, std::span<FusedOperand> operands, const Plan& plan,
                       const SegView& sd) {
  using T = typename C::value_type;
  Vector out = result_vector(op, plan, operands, type_of<T>(), plan.domain);
  T* o = elements<T>(out);
  Frame frame(plan, op);
  std::size_t k = 0;
  T acc = C::identity;
  for (std::size_t lo = 0; lo < plan.domain; lo += frame.block()) {
    const std::size_t hi = std::min(lo + frame.block(), plan.domain);
    const T* x = static_cast<const T*>(frame.evaluate(lo, hi, nullptr)) - lo;
    std::size_t pos = lo;
    while (true) {
      while (k < sd.segments && sd.start(k + 1) <= pos) {
        acc = C::identity;
        ++k;
      }
      if (pos == hi) break;
      const std::size_t end = std::min(sd.start(k + 1), hi);
      T a = acc;
      for (std::size_t i = pos; i < end; ++i) {
        T v = x[i];  // read before writing: x may be the output's own memory
        o[i] = a;
        a = C::apply(a, v);
      }
      acc = a;
      pos = end;
    }
  }
  if (frame.fault().found()) frame.fault().raise();
  return out;
}

}  // namespace

Vector fused(const Context& ctx, const SuperOp& op, std::span<FusedOperand> operands,
             std::size_t domain) {
  const Plan plan = compile(op, operands, domain);
  const SuperOpNode& root = op.root();
  if (root.kind == NodeKind::Operand) return operands[root.operand].vector;
  if (root.kind != NodeKind::Scan && root.kind != NodeKind::Reduce)
    return map(ctx, op, operands, plan);

  const SegView& sd = plan.views[op.nodes[root.args[1]].operand];
  const Type type = to_type(root.type);
  if (root.kind == NodeKind::Reduce)
    return with_combine(root.op, type, [&]<class C>() {
      return reduce_typed<C>(ctx, op, plan, sd, false);
    });
  // Several threads: the values first, then cvl-cpu's own scan in place, so the regrouping is
  // exactly the unfused program's.
  if (ctx.par.team_for(domain, kMemoryBoundThreshold) > 1)
    return scan(ctx, root.op, map(ctx, op, operands, plan), sd);
  return with_combine(root.op, type, [&]<class C>() {
    return scan_sequential<C>(op, operands, plan, sd);
  });
}

}  // namespace cvl::cpu
