// FCODE superoperators (vcode/superop.hpp) in one pass. prepare_fused turns a definition, by its
// analysis (vcode/superop_analysis.hpp), into one kernel per node (simd/elementwise_kernels.hpp),
// once; each call binds the operands' data and evaluates the expression over blocks of kBlock
// elements, each node's values for the block in a small buffer that stays in cache. Blocks are
// shared between threads like the other ops. DIST and INDEX leaves read their per-segment values
// through the descriptor's offsets, never through a full-length vector; a gather at an INDEX of
// runs reads its source where each run lies (Frame::gather_runs). A reduction or scan at the
// root folds the block values as they are made, through the fold scan_reduce.cpp uses
// (segmented_fold.hpp), so the results are identical to the unfused program's at any thread count.
#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "fused/fused.hpp"

#include "cvl/op_dispatch.hpp"
#include "cvl/scalar_semantics.hpp"
#include "families/combine.hpp"
#include "families/index_loops.hpp"
#include "families/segment_fill.hpp"
#include "families/segmented_fold.hpp"
#include "families/vector_math.hpp"
#include "pending/lazy_elementwise.hpp"
#include "simd/elementwise_kernels.hpp"
#include "simd/gather.hpp"

namespace cvl::cpu {
namespace {

using vcode::NodeRole;
using vcode::Op;
using vcode::SuperOp;
using vcode::SuperOpNode;
using NodeKind = SuperOpNode::Kind;
using I32 = std::int32_t;
using F64 = double;
using B8 = std::uint8_t;

// Elements per block: with nodes sharing buffers (CpuSuperOp::assign_buffers), 256 elements keep
// a long expression's live buffers in the L1 cache, which larger blocks do not; smaller ones
// gained nothing more (bench/RESULTS.md).
constexpr std::size_t kBlock = 256;


// ---- The plan: what does not depend on the operands.

struct NodePlan {
  NodeKind kind = NodeKind::Operand;
  NodeRole role = NodeRole::Unused;
  Type type = Type::Int;  // of the values this node produces
  std::uint8_t arity = 0;
  std::uint32_t args[3] = {0, 0, 0};
  Kernel kernel = nullptr;         // Elementwise
  ArrayFunction fast = nullptr;    // Elementwise, fast mode: a vector transcendental instead
  bool checks_division = false;    // INT / and %: divisors are checked before the kernel runs
  bool invariant = false;          // the same value at every element: computed once per frame
  // Also invariant in a call whose descriptors each have one segment (the scalars of top-level
  // code): such nodes keep buffers of their own.
  bool uniform_if_one_segment = false;
  std::uint32_t same_as = 0;       // the node whose values these are (itself when computed here)
  std::uint32_t buffer = 0;        // its block buffer in the frame, when it has one
  std::uint32_t operand = 0;       // Operand: k of $k
  I32 int_value = 0;               // Constant INT, BOOL
  F64 float_value = 0;             // Constant FLOAT
};

class CpuSuperOp final : public PreparedSuperOp {
 public:
  CpuSuperOp(const SuperOp& op, bool fast_math, std::vector<std::uint32_t> outputs)
      : PreparedSuperOp(op, std::move(outputs)) {
    nodes.resize(op.nodes.size());
    for (std::size_t i = 0; i < op.nodes.size(); ++i) {
      const SuperOpNode& n = op.nodes[i];
      NodePlan& p = nodes[i];
      p.kind = n.kind;
      p.role = analysis.roles[i];
      p.type = to_type(n.result);
      p.arity = n.arity;
      std::copy(std::begin(n.args), std::end(n.args), std::begin(p.args));
      p.operand = n.operand;
      p.int_value = n.int_value;
      p.float_value = n.float_value;
      p.invariant = analysis.invariant[i];
      p.uniform_if_one_segment = analysis.uniform_if_one_segment[i];
      p.same_as = analysis.same_as[i];
      if (n.kind != NodeKind::Elementwise || p.role != NodeRole::Element) continue;
      p.kernel = kernel_for(n.op, to_type(n.type));
      if (fast_math) p.fast = fast_math_function(n.op);
      p.checks_division =
          vcode::elementwise_can_trap(n.op, n.type);
      if (vcode::info(n.op).cost == vcode::Cost::Compute) threshold = kComputeBoundThreshold;
    }
    assign_buffers();
  }

  std::vector<NodePlan> nodes;
  std::size_t buffers = 1;  // block buffers a frame needs
  std::size_t threshold = kMemoryBoundThreshold;  // elements before threads pay

 private:
  // Block buffers shared by nodes whose values are not needed at once, so that a long expression
  // works in a few buffers that stay in the L1 cache instead of one per node. A node's buffer is
  // free after its last reader has run (never while that reader writes: an output never shares
  // its inputs' buffer); nodes that may be uniform keep theirs (filled once per frame).
  void assign_buffers() {
    const std::size_t count = nodes.size();
    constexpr std::size_t kKept = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> last_read(count, 0);
    for (std::size_t i = 0; i < count; ++i) {
      const bool reads_buffers =
          nodes[i].kind == NodeKind::Elementwise || nodes[i].kind == NodeKind::Gather;
      if (!reads_buffers || nodes[i].same_as != i) continue;
      for (std::uint8_t k = 0; k < nodes[i].arity; ++k) {
        const std::uint32_t from = nodes[nodes[i].args[k]].same_as;
        last_read[from] = std::max(last_read[from], i);
      }
    }
    last_read[analysis.values_node] = kKept;  // the frame's result
    for (std::uint32_t output : outputs) last_read[nodes[output].same_as] = kKept;
    auto computed = [&](std::size_t i) {
      const NodePlan& n = nodes[i];
      return (n.role == NodeRole::Element || n.role == NodeRole::Constant) && n.same_as == i &&
             n.kind != NodeKind::Operand;
    };
    std::uint32_t made = 0;
    for (std::size_t i = 0; i < count; ++i)  // filled once per frame: buffers of their own
      if (computed(i) && nodes[i].uniform_if_one_segment) nodes[i].buffer = made++;
    std::vector<std::uint32_t> free;
    std::vector<std::vector<std::uint32_t>> freed_after(count);
    for (std::size_t i = 0; i < count; ++i) {
      NodePlan& n = nodes[i];
      if (computed(i) && !n.uniform_if_one_segment) {
        if (free.empty()) {
          n.buffer = made++;
        } else {
          n.buffer = free.back();
          free.pop_back();
        }
        if (last_read[i] != kKept) freed_after[std::max(last_read[i], i)].push_back(n.buffer);
      }
      for (std::uint32_t b : freed_after[i]) free.push_back(b);
    }
    buffers = std::max<std::uint32_t>(made, 1);
  }
};

// ---- One call: the operands' data.

struct OperandData {
  const std::byte* elements = nullptr;  // a vector's
  SegmentView segments;                 // a descriptor's
  WideSegmentView wide_segments;        // a wide descriptor's (then `wide`)
  bool wide = false;
};

struct Call {
  const CpuSuperOp& plan;
  std::vector<OperandData> operands;
  std::size_t domain;
  bool one_segment = true;  // every descriptor operand has one segment

  Call(const CpuSuperOp& p, std::span<FusedOperand> given, std::size_t n)
      : plan(p), operands(given.size()), domain(n) {
    for (std::size_t k = 0; k < given.size(); ++k) {
      if (p.definition.operands[k] == vcode::TypeKeyword::Segdes && is_wide(given[k].segdes)) {
        operands[k].wide_segments = wide_view(given[k].segdes);
        operands[k].wide = true;
        one_segment = false;
      } else if (p.definition.operands[k] == vcode::TypeKeyword::Segdes) {
        operands[k].segments = view(given[k].segdes);
        one_segment = one_segment && operands[k].segments.segments == 1;
      } else {
        operands[k].elements = elements<std::byte>(given[k].vector);
      }
    }
  }

  // Whether node i has the same value at every element of this call.
  bool uniform(std::size_t i) const {
    const NodePlan& n = plan.nodes[i];
    return n.invariant || (one_segment && n.uniform_if_one_segment);
  }

  // The elements of the operand that node `node` ($k) reads, as bits.
  template <class Bits>
  const Bits* operand_bits(std::uint32_t node) const {
    return reinterpret_cast<const Bits*>(operands[plan.nodes[node].operand].elements);
  }

  // An INDEX start or stride per segment: an operand's elements, or a constant (read with step
  // 0, so that the loop over segments has no branch on which).
  struct Leaf {
    const I32* values;
    std::size_t step;
    I32 operator[](std::size_t k) const { return values[k * step]; }
  };
  // A Leaf known to be one constant.
  struct OneValue {
    I32 value;
    I32 operator[](std::size_t) const { return value; }
  };
  Leaf int_leaf(std::uint32_t node) const {
    const NodePlan& n = plan.nodes[node];
    if (n.kind == NodeKind::Operand)
      return {reinterpret_cast<const I32*>(operands[n.operand].elements), 1};
    return {&n.int_value, 0};
  }
  const OperandData& descriptor_of(std::uint32_t descriptor_node) const {
    return operands[plan.nodes[descriptor_node].operand];
  }
  // Calls f(view) with the view of descriptor node `descriptor_node`, wide or not.
  template <class F>
  decltype(auto) with_segments(std::uint32_t descriptor_node, F&& f) const {
    const OperandData& d = descriptor_of(descriptor_node);
    return d.wide ? f(d.wide_segments) : f(d.segments);
  }
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


// One thread's evaluator: a buffer per node, and the division faults it met.
class Frame {
 public:
  explicit Frame(const Call& call)
      : call_(call),
        nodes_(call.plan.nodes),
        last_(call.plan.analysis.values_node),
        block_(std::min(kBlock, std::max<std::size_t>(call.domain, 1))),
        scratch_(block_ * call.plan.buffers),
        values_(nodes_.size()),
        result_(nodes_[last_].same_as) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (!call.uniform(i)) continue;
      if (nodes_[i].same_as == i) fill_uniform(i);
      else values_[i] = values_[nodes_[i].same_as];
    }
    plan_steps();
  }

  std::size_t block() const { return block_; }
  const DivisionFault& fault() const { return fault_; }
  // The values of node `node` in the block evaluate() made last.
  const void* values_of(std::uint32_t node) const { return values_[nodes_[node].same_as]; }

  // Evaluates [lo, hi) (at most block() elements) and returns the values of the analysis's
  // values node, written to `out` when given (the result's elements lo..hi), else to that
  // node's buffer.
  const void* evaluate(std::size_t lo, std::size_t hi, void* out) {
    const std::size_t n = hi - lo;
    for (const Step& s : steps_) {
      const NodePlan& p = nodes_[s.node];
      void* target = s.node == last_ && out ? out : slot(s.node);
      switch (p.kind) {
        case NodeKind::Operand:
          values_[s.node] = call_.operands[p.operand].elements + lo * element_size(p.type);
          continue;
        case NodeKind::Elementwise: {
          const void* in[3] = {values_[s.args[0]], values_[s.args[1]], values_[s.args[2]]};
          if (p.checks_division) check_divisors(lo, n, in);
          if (p.fast)
            p.fast(n, static_cast<const F64*>(in[0]), static_cast<F64*>(target));
          else
            p.kernel(n, in, target);
          break;
        }
        case NodeKind::Dist:
          with_element_bits(p.type, [&]<class Bits>() {
            distribute<Bits>(s.node, lo, hi, static_cast<Bits*>(target));
          });
          break;
        case NodeKind::Index:
          index(s.node, lo, hi, static_cast<I32*>(target));
          break;
        case NodeKind::Gather:
          if (s.runs) {
            const void* read = nullptr;
            with_element_bits(p.type, [&]<class Bits>() {
              read = gather_runs(s, lo, hi, static_cast<Bits*>(target), target == out);
            });
            values_[s.node] = read;
            continue;
          }
          with_element_bits(p.type, [&]<class Bits>() {
            gather(p, n, static_cast<const I32*>(values_[s.args[1]]), static_cast<Bits*>(target));
          });
          break;
        case NodeKind::Random:
          random(s.node, lo, n, static_cast<I32*>(target));
          break;
        default:
          continue;
      }
      values_[s.node] = target;
    }
    if (out && !result_written_) copy_out(result_, n, out);
    return values_[result_];
  }

 private:
  // A node computed at each block, with its arguments' first equal nodes.
  struct Step {
    std::uint32_t node;
    std::uint32_t args[3];
    bool runs = false;  // a Gather at an INDEX of runs (gather_runs)
  };

  // The nodes evaluate() computes, in order: those read at each element that are neither
  // uniform in this call (filled by the constructor) nor repeats of an earlier node. A long
  // tree repeats its shared values at each use (black-scholes' superoperators have 200 nodes
  // and 40 distinct ones), so walking only these keeps the per-block cost to the real work.
  void plan_steps() {
    const std::vector<bool> only_runs = read_only_as_runs();
    for (std::uint32_t i = 0; i <= last_; ++i) {
      const NodePlan& p = nodes_[i];
      if (p.role != NodeRole::Element && p.role != NodeRole::Constant) continue;
      if (call_.uniform(i) || p.same_as != i) continue;  // constants are uniform
      if (only_runs[i]) continue;
      Step s{i, {0, 0, 0}};
      for (std::uint8_t k = 0; k < p.arity; ++k) s.args[k] = nodes_[p.args[k]].same_as;
      s.runs = p.kind == NodeKind::Gather && reads_runs(s.args[1]);
      steps_.push_back(s);
      if (i == last_) result_written_ = p.kind != NodeKind::Operand;
    }
  }

  // Whether positions node `i` is an INDEX that counts by 1 from a start per segment, its
  // segments long enough on average (kLongRunMin) for a copy per piece to beat a gather per
  // element (a free sequence read in place by each instance: each block a piece of one
  // segment, read where it lies).
  bool reads_runs(std::uint32_t i) const {
    const NodePlan& p = nodes_[i];
    if (p.kind != NodeKind::Index || call_.uniform(i)) return false;
    const NodePlan& stride = nodes_[nodes_[p.args[1]].same_as];
    if (stride.kind != NodeKind::Constant || stride.int_value != 1) return false;
    return call_.with_segments(p.args[2], [](const auto& sd) {
      return sd.total >= kLongRunMin * std::max<std::size_t>(sd.segments, 1);
    });
  }

  // Per node: an INDEX of runs that only gathers read (as runs): never computed itself.
  std::vector<bool> read_only_as_runs() const {
    std::vector<bool> only(nodes_.size(), false);
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) only[i] = nodes_[i].same_as == i && reads_runs(i);
    only[nodes_[last_].same_as] = false;
    for (std::uint32_t output : call_.plan.outputs) only[nodes_[output].same_as] = false;
    for (std::uint32_t j = 0; j < nodes_.size(); ++j) {
      const NodePlan& p = nodes_[j];
      for (std::uint8_t k = 0; k < p.arity; ++k) {
        const std::uint32_t from = nodes_[p.args[k]].same_as;
        if (!(p.kind == NodeKind::Gather && k == 1)) only[from] = false;
      }
    }
    return only;
  }

  void* slot(std::size_t node) { return scratch_.data() + nodes_[node].buffer * block_; }

  // The block of a uniform node: its one value, computed by the node's own function (so with
  // the bits it has at each element), then repeated.
  void fill_uniform(std::size_t i) {
    const NodePlan& p = nodes_[i];
    void* buffer = slot(i);
    values_[i] = buffer;
    switch (p.kind) {
      case NodeKind::Constant:
        fill_constant(p, buffer);
        return;
      case NodeKind::Dist: {  // of a constant, or of an operand over one segment
        const NodePlan& leaf = nodes_[p.args[0]];
        if (leaf.kind == NodeKind::Constant) {
          fill_constant(leaf, buffer);
          return;
        }
        with_element_bits(p.type, [&]<class Bits>() {
          std::fill_n(static_cast<Bits*>(buffer), block_, call_.operand_bits<Bits>(p.args[0])[0]);
        });
        return;
      }
      case NodeKind::Elementwise: {
        const void* in[3] = {values_[p.args[0]], values_[p.args[1]], values_[p.args[2]]};
        if (p.fast)
          p.fast(1, static_cast<const F64*>(in[0]), static_cast<F64*>(buffer));
        else
          p.kernel(1, in, buffer);
        with_element_bits(p.type, [&]<class Bits>() {
          Bits* b = static_cast<Bits*>(buffer);
          std::fill(b + 1, b + block_, b[0]);
        });
        return;
      }
      default:
        return;
    }
  }

  void fill_constant(const NodePlan& c, void* buffer) const {
    switch (c.type) {
      case Type::Int: std::fill_n(static_cast<I32*>(buffer), block_, c.int_value); break;
      case Type::Float: std::fill_n(static_cast<F64*>(buffer), block_, c.float_value); break;
      case Type::Bool: std::fill_n(static_cast<B8*>(buffer), block_, B8(c.int_value != 0)); break;
    }
  }

  void copy_out(std::size_t node, std::size_t n, void* out) const {
    std::copy_n(static_cast<const std::byte*>(values_[node]), n * element_size(nodes_[node].type),
                static_cast<std::byte*>(out));
  }

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
  void distribute(std::uint32_t node, std::size_t lo, std::size_t hi, Bits* out) {
    const NodePlan& p = nodes_[node];
    // Of an operand: a DIST of a constant is invariant, filled once per frame (fill_uniform).
    const Bits* values = call_.operand_bits<Bits>(p.args[0]);
    SegmentCursor& cursor = cursor_of(node);
    call_.with_segments(p.args[1], [&](const auto& sd) {
      cursor.segment = fill_dist(out, sd, cursor.holding(sd, lo), lo, hi, values, false);
    });
    cursor.next = hi;
  }

  // The positions were checked by the BPERMUTE that made the node (lazy_elementwise.hpp).
  template <class Bits>
  void gather(const NodePlan& p, std::size_t n, const I32* positions, Bits* out) const {
    const Bits* values = call_.operand_bits<Bits>(p.args[0]);
    if constexpr (sizeof(Bits) == 4 || sizeof(Bits) == 8) {
      static const simd::GatherFunction<Bits> wide = [] {
        if constexpr (sizeof(Bits) == 4) return simd::gather32(); else return simd::gather64();
      }();
      if (wide) {
        wide(n, positions, values, out);
        return;
      }
    }
    gather_unchecked(values, positions, out, n);
  }

  // A Gather whose positions are an INDEX of runs (reads_runs): the source read where each
  // piece of a segment lies, a block inside one segment not copied at all (unless it must be
  // written to `target`). The positions were checked, as gather()'s were.
  template <class Bits>
  const void* gather_runs(const Step& s, std::size_t lo, std::size_t hi, Bits* target,
                          bool into_target) {
    return call_.with_segments(nodes_[s.args[1]].args[2], [&](const auto& sd) {
      return gather_runs_over<Bits>(s, sd, lo, hi, target, into_target);
    });
  }

  // gather_runs over the INDEX's descriptor `sd`, wide (a nested level past the longest vector,
  // each segment a run of a short source) or not.
  template <class Bits, class View>
  const void* gather_runs_over(const Step& s, const View& sd, std::size_t lo, std::size_t hi,
                               Bits* target, bool into_target) {
    const NodePlan& index = nodes_[s.args[1]];
    const Bits* values = call_.operand_bits<Bits>(nodes_[s.node].args[0]);
    const Call::Leaf starts = call_.int_leaf(index.args[0]);
    SegmentCursor& cursor = cursor_of(s.node);
    std::size_t k = cursor.holding(sd, lo);
    auto source_at = [&](std::size_t pos) {
      return values + static_cast<std::uint32_t>(starts[k]) + (pos - sd.start(k));
    };
    cursor.next = hi;
    if (!into_target && hi <= sd.start(k + 1)) {
      cursor.segment = k;
      return source_at(lo);
    }
    for (std::size_t pos = lo; pos < hi;) {
      k = next_segment_holding(sd, k, pos);
      const std::size_t end = std::min<std::size_t>(hi, sd.start(k + 1));
      std::memcpy(target + (pos - lo), source_at(pos), (end - pos) * sizeof(Bits));
      pos = end;
    }
    cursor.segment = k;
    return target;
  }

  void index(std::uint32_t node, std::size_t lo, std::size_t hi, I32* out) {
    const NodePlan& p = nodes_[node];
    const Call::Leaf starts = call_.int_leaf(p.args[0]), strides = call_.int_leaf(p.args[1]);
    SegmentCursor& cursor = cursor_of(node);
    call_.with_segments(p.args[2], [&](const auto& sd) {
      const std::size_t k = cursor.holding(sd, lo);
      // One stride for all segments, as a type: the compiler keeps it out of the loop.
      cursor.segment = strides.step == 0
                           ? fill_index(out, sd, k, lo, hi, starts, Call::OneValue{strides[0]})
                           : fill_index(out, sd, k, lo, hi, starts, strides);
    });
    cursor.next = hi;
  }

  // Where a DIST or INDEX node's last block ended: its next block, when it starts there, finds
  // its first segment by a walk from the last one written (segments of one length are found by
  // a division).
  struct SegmentCursor {
    std::uint32_t node;
    std::size_t next = std::numeric_limits<std::size_t>::max();
    std::size_t segment = 0;  // the last segment the previous block wrote

    template <class View>
    std::size_t holding(const View& sd, std::size_t lo) const {
      return lo == next && sd.uniform <= 0 ? next_segment_holding(sd, segment, lo)
                                           : sd.segment_of(lo);
    }
  };
  SegmentCursor& cursor_of(std::uint32_t node) {
    for (SegmentCursor& c : cursors_)
      if (c.node == node) return c;
    return cursors_.emplace_back(SegmentCursor{node});
  }

  // Draws lo..lo+n of the stream a Random node's operand saved: the draws after the previous
  // block's when this frame's blocks follow on, else from the saved stream moved on to lo.
  void random(std::uint32_t node, std::size_t lo, std::size_t n, I32* out) {
    const NodePlan& p = nodes_[node];
    auto cursor = std::find_if(streams_.begin(), streams_.end(),
                               [&](const StreamCursor& c) { return c.node == node; });
    if (cursor == streams_.end()) {
      streams_.emplace_back().node = node;
      cursor = streams_.end() - 1;
    }
    if (cursor->at != lo) {
      cursor->stream = saved_stream(call_.operand_bits<std::byte>(p.args[0]));
      cursor->stream.discard(lo);
    }
    draw_random(out, n, nullptr, p.int_value, cursor->stream);
    cursor->at = lo + n;
  }

  struct StreamCursor {
    std::uint32_t node;
    std::size_t at = std::numeric_limits<std::size_t>::max();  // the stream's next draw
    RandomStream stream;
  };

  const Call& call_;
  const std::vector<NodePlan>& nodes_;
  std::size_t last_;
  std::size_t block_;
  Scratch<F64> scratch_;  // F64 slots: wide enough for every element type
  std::vector<const void*> values_;
  std::uint32_t result_;          // the first node equal to the values node
  bool result_written_ = false;   // evaluate() writes it straight to `out`
  std::vector<Step> steps_;
  std::vector<StreamCursor> streams_;  // one per Random node read so far
  std::vector<SegmentCursor> cursors_;  // one per DIST or INDEX node read so far
  DivisionFault fault_;
};

// A frame as the value source of segmented_fold.hpp.
template <class T>
struct FrameValues {
  Frame& frame;

  std::size_t block() const { return frame.block(); }
  const T* values(std::size_t lo, std::size_t hi) {
    return static_cast<const T*>(frame.evaluate(lo, hi, nullptr)) - lo;
  }
};

// Runs `body(frame, lo, hi)` over [0, domain) in blocks, on the team elementwise ops would use;
// throws the lowest division fault.
template <class Body>
void for_each_block(const Parallel& par, const Call& call, Body&& body) {
  auto run = [&](std::size_t begin, std::size_t end, DivisionFault& fault) {
    Frame frame(call);
    for (std::size_t lo = begin; lo < end; lo += frame.block())
      body(frame, lo, std::min(lo + frame.block(), end));
    fault = frame.fault();
  };
  DivisionFault fault;
  if (par.team_for(call.domain, call.plan.threshold) <= 1) {  // no pool job for short vectors
    run(0, call.domain, fault);
  } else {
    std::mutex fault_mutex;
    parallel_for(par, call.domain, call.plan.threshold, [&](std::size_t begin, std::size_t end) {
      DivisionFault mine;
      run(begin, end, mine);
      std::lock_guard lock(fault_mutex);
      fault.keep_lowest(mine);
    });
  }
  if (fault.found()) fault.raise();
}

// The result vector: an operand read only elementwise, unshared and of the right shape, is
// overwritten in place (each element is read before it is written, in the same block).
Vector result_vector(const CpuSuperOp& plan, std::span<FusedOperand> operands, Type type,
                     std::size_t length) {
  const std::vector<vcode::OperandUse>& uses = plan.analysis.operands;
  for (std::size_t k = 0; k < operands.size(); ++k)
    if (uses[k].elementwise && uses[k].per_segment_of.empty() && !uses[k].gathered &&
        plan.definition.operands[k] != vcode::TypeKeyword::Segdes &&
        reusable(operands[k].vector, type, length))
      return std::move(operands[k].vector);
  return allocate(type, length);
}

// The output nodes of a plan prepared with outputs (fused_outputs), written where each block is
// made.
struct OutputWriter {
  const std::vector<std::uint32_t>& nodes;
  std::vector<std::byte*> out;
  std::vector<std::size_t> sizes;

  void write(const Frame& frame, std::size_t lo, std::size_t hi) const {
    for (std::size_t k = 0; k < nodes.size(); ++k)
      std::memcpy(out[k] + lo * sizes[k], frame.values_of(nodes[k]), (hi - lo) * sizes[k]);
  }
};

Vector map(const Context& ctx, const Call& call, std::span<FusedOperand> operands,
           const OutputWriter* outputs = nullptr) {
  const Type type = to_type(call.plan.analysis.values_type);
  // The same value at every element (a DIST of a constant: NESL's rand bounds): computed on one
  // element, written only where an op reads the elements as memory (Buffer::defer_fill).
  if (!outputs && call.domain >= kDeferredFillMin && call.uniform(call.plan.analysis.values_node)) {
    Frame frame(call);
    std::uint64_t bits = 0;
    frame.evaluate(0, 1, &bits);
    if (frame.fault().found()) frame.fault().raise();
    return uniform_vector({}, type, call.domain, bits);
  }
  Vector out = result_vector(call.plan, operands, type, call.domain);
  std::byte* o = elements<std::byte>(out);
  const std::size_t size = element_size(type);
  for_each_block(ctx.par, call, [&](Frame& frame, std::size_t lo, std::size_t hi) {
    frame.evaluate(lo, hi, o + lo * size);
    if (outputs) outputs->write(frame, lo, hi);
  });
  return out;
}

// ---- Reduce and scan roots: segmented_fold.hpp over the frames' values.

template <class C, class View>
Vector reduce_typed(const Context& ctx, const Call& call, const View& sd, bool* first_held_nan) {
  using T = typename C::value_type;
  Vector out = allocate(type_of<T>(), sd.segments);
  DivisionFault fault;
  std::mutex fault_mutex;
  reduce_segments<C>(
      ctx.par, sd, elements<T>(out),
      [&](auto&& fold) {
        Frame frame(call);
        FrameValues<T> values{frame};
        fold(values);
        std::lock_guard lock(fault_mutex);
        fault.keep_lowest(frame.fault());
      },
      kNanSensitive<C> ? first_held_nan : nullptr);
  if (fault.found()) fault.raise();
  return out;
}

// One thread: the values and their exclusive scan in the same pass.
template <class C>
Vector scan_typed(const Call& call, std::span<FusedOperand> operands, const SegmentView& sd) {
  using T = typename C::value_type;
  Vector out = result_vector(call.plan, operands, type_of<T>(), call.domain);
  Frame frame(call);
  FrameValues<T> values{frame};
  scan_sequential<C>(values, elements<T>(out), sd);
  if (frame.fault().found()) frame.fault().raise();
  return out;
}

// ---- Several reductions and scans of one elementwise definition's values in one pass
// (fused_folds).

// One of them. A reduction: PartFold (segmented_fold.hpp) per part, the parts' heads combined in
// part order, as reduce_segments does, so each result is what reduce_typed gives alone. A scan:
// TypedManyScan.
class ManyFold {
 public:
  virtual ~ManyFold() = default;
  // Whether its result depends on where the parts are cut (FLOAT + and *: kRegroupingRounds),
  // so that it takes the team fixed by the sizes; any other gives the same bits at any team.
  virtual bool regroups() const = 0;
  // Before the parts: how many there are.
  virtual void begin(std::size_t blocks) = 0;
  // Part b of `blocks` (parts = 1: the whole), folding each block given; finish() at its end.
  class PartState {
   public:
    virtual ~PartState() = default;
    virtual void add(const void* block, std::size_t lo, std::size_t hi) = 0;
    virtual void finish() = 0;
  };
  virtual std::unique_ptr<PartState> part(std::size_t b, std::size_t blocks) = 0;
  // The result once every part is finished; in a sequential pass of its own where a part was not
  // exact (a cut FLOAT MAX/MIN segment held a NaN), as reduce_segments does.
  virtual Vector result(const Context& ctx, const Call& call) = 0;
};

template <class C, class View>
class TypedManyFold final : public ManyFold {
  using T = typename C::value_type;

 public:
  // Folding node `node` of the frames (the root's values where it is `root`) over `sd`, wide
  // (past the longest vector: only its per-segment results are stored) or not.
  TypedManyFold(View sd, std::uint32_t node, bool root)
      : sd_(sd), node_(node), root_(root), out_(allocate(type_of<T>(), sd_.segments)) {}

  bool regroups() const override { return kRegroupingRounds<C>; }

  void begin(std::size_t blocks) override {
    head_.assign(blocks, C::identity);
    head_segment_.assign(blocks, kNone);
  }

  std::unique_ptr<PartState> part(std::size_t b, std::size_t blocks) override {
    return std::make_unique<State>(*this, b, blocks);
  }

  Vector result(const Context& ctx, const Call& call) override {
    if (inexact_.load()) {
      DivisionFault fault;
      std::mutex fault_mutex;
      reduce_segments<C>(
          ctx.par, sd_, elements<T>(out_),
          [&](auto&& fold) {
            Frame frame(call);
            NodeValues values{frame, node_, root_};
            fold(values);
            std::lock_guard lock(fault_mutex);
            fault.keep_lowest(frame.fault());
          },
          nullptr, true);
      if (fault.found()) fault.raise();
      return std::move(out_);
    }
    T* result = elements<T>(out_);
    for (std::size_t b = 1; b < head_.size(); ++b)
      if (head_segment_[b] != kNone)
        result[head_segment_[b]] = C::apply(result[head_segment_[b]], head_[b]);
    return std::move(out_);
  }

 private:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

  // The frame's values of the folded node, as a value source of segmented_fold.hpp.
  struct NodeValues {
    Frame& frame;
    std::uint32_t node;
    bool root;

    std::size_t block() const { return frame.block(); }
    const T* values(std::size_t lo, std::size_t hi) {
      const void* values = frame.evaluate(lo, hi, nullptr);
      return static_cast<const T*>(root ? values : frame.values_of(node)) - lo;
    }
  };

  struct Done {
    TypedManyFold* fold;
    std::size_t b;
    void operator()(std::size_t k, T value, bool is_head, bool) const {
      if (!is_head) {
        elements<T>(fold->out_)[k] = value;
        return;
      }
      fold->head_[b] = value;
      fold->head_segment_[b] = k;
    }
  };

  class State final : public PartState {
   public:
    State(TypedManyFold& fold, std::size_t b, std::size_t blocks)
        : fold_(fold), part_(make_part(fold.sd_, b, blocks)),
          folding_(fold.sd_, part_, Done{&fold, b}) {}
    void add(const void* block, std::size_t lo, std::size_t hi) override {
      folding_.add(static_cast<const T*>(block) - lo, lo, hi);
    }
    void finish() override {
      if (!folding_.finish()) fold_.inexact_.store(true, std::memory_order_relaxed);
    }

   private:
    TypedManyFold& fold_;
    Part part_;
    PartFold<C, View, Done> folding_;
  };

  View sd_;
  std::uint32_t node_;
  bool root_;
  Vector out_;
  std::vector<T> head_;
  std::vector<std::size_t> head_segment_;
  std::atomic<bool> inexact_{false};
};

// A scan among them, into its result. With one part, the blocks are scanned as they come
// (SequentialScan, as scan_typed does); with several, the values are written to the result and
// scanned there in place afterwards by scan_reduce.cpp's scan, as fused() does under threads, so
// that its parts are cut where the unfused scan cuts them. A scan whose combination regroups
// (FLOAT + and *) counts as regrouping: the pass then takes the team fixed by the sizes, one part
// exactly where the unfused scan runs sequentially.
template <class C>
class TypedManyScan final : public ManyFold {
  using T = typename C::value_type;

 public:
  TypedManyScan(vcode::Op op, SegmentView sd, Vector out)
      : op_(op), sd_(sd), out_(std::move(out)) {}

  bool regroups() const override { return kRegroupingRounds<C>; }

  void begin(std::size_t blocks) override { in_place_ = blocks > 1; }

  std::unique_ptr<PartState> part(std::size_t, std::size_t) override {
    if (in_place_) return std::make_unique<Copy>(elements<T>(out_));
    return std::make_unique<Scan>(sd_, elements<T>(out_));
  }

  Vector result(const Context& ctx, const Call&) override {
    if (!in_place_) return std::move(out_);
    return scan(ctx, op_, std::move(out_), sd_);
  }

 private:
  class Scan final : public PartState {
   public:
    Scan(const SegmentView& sd, T* out) : scanning_(sd, out) {}
    void add(const void* block, std::size_t lo, std::size_t hi) override {
      scanning_.add(static_cast<const T*>(block) - lo, lo, hi);
    }
    void finish() override {}

   private:
    SequentialScan<C, SegmentView> scanning_;
  };

  class Copy final : public PartState {
   public:
    explicit Copy(T* out) : out_(out) {}
    void add(const void* block, std::size_t lo, std::size_t hi) override {
      std::memcpy(out_ + lo, block, (hi - lo) * sizeof(T));
    }
    void finish() override {}

   private:
    T* out_;
  };

  vcode::Op op_;
  SegmentView sd_;
  Vector out_;
  bool in_place_ = false;
};

}  // namespace

std::unique_ptr<PreparedSuperOp> prepare_fused(const Context& ctx, const SuperOp& op,
                                               std::vector<std::uint32_t> outputs) {
  return std::make_unique<CpuSuperOp>(op, ctx.fast_math, std::move(outputs));
}

std::vector<Vector> fused_outputs(const Context& ctx, const PreparedSuperOp& prepared,
                                  std::span<FusedOperand> operands, std::size_t domain) {
  const auto& plan = static_cast<const CpuSuperOp&>(prepared);
  const Call call(plan, operands, domain);
  std::vector<Vector> results;
  OutputWriter outputs{plan.outputs, {}, {}};
  for (std::uint32_t node : plan.outputs) {
    const Type type = to_type(plan.definition.nodes[node].result);
    results.push_back(allocate(type, domain));
    outputs.out.push_back(elements<std::byte>(results.back()));
    outputs.sizes.push_back(element_size(type));
  }
  results.push_back(map(ctx, call, operands, &outputs));
  return results;
}

Vector fused(const Context& ctx, const PreparedSuperOp& prepared, std::span<FusedOperand> operands,
             std::size_t domain, bool* first_held_nan) {
  const auto& plan = static_cast<const CpuSuperOp&>(prepared);
  const vcode::SuperOpAnalysis& analysis = plan.analysis;
  const SuperOpNode& root = plan.definition.root();
  if (root.kind == NodeKind::Operand) return std::move(operands[root.operand].vector);
  const Call call(plan, operands, domain);
  if (!analysis.folds()) return map(ctx, call, operands);

  const OperandData& root_segments = call.operands[analysis.root_segdes];
  const SegmentView& sd = root_segments.segments;
  const Type type = to_type(analysis.values_type);
  if (analysis.root_kind == vcode::RootKind::Reduce)
    return with_combine(analysis.root_op, type, [&]<class C>() {
      // Over a wide descriptor: one value per segment, from values never stored.
      return root_segments.wide
                 ? reduce_typed<C>(ctx, call, root_segments.wide_segments, first_held_nan)
                 : reduce_typed<C>(ctx, call, sd, first_held_nan);
    });
  // A scan's result is as long as its operand.
  if (root_segments.wide) throw Error(vector_too_long_message(domain));
  // Several threads: the values first, then cvl-cpu's own scan in place, so the regrouping is
  // exactly the unfused program's (whose cut is fixed_team_for's).
  if (ctx.par.fixed_team_for(domain, kMemoryBoundThreshold) > 1)
    return scan(ctx, analysis.root_op, map(ctx, call, operands), sd);
  return with_combine(analysis.root_op, type,
                      [&]<class C>() { return scan_typed<C>(call, operands, sd); });
}

std::vector<Vector> fused_folds(const Context& ctx, const PreparedSuperOp& prepared,
                                std::span<FusedOperand> operands, std::size_t domain,
                                std::span<FoldOfValues> folds) {
  const auto& plan = static_cast<const CpuSuperOp&>(prepared);
  const Call call(plan, operands, domain);
  const std::uint32_t root = static_cast<std::uint32_t>(plan.definition.nodes.size() - 1);
  std::vector<std::unique_ptr<ManyFold>> many;
  for (FoldOfValues& f : folds) {
    const Type type = to_type(plan.definition.nodes[f.node].result);
    const bool scans = vcode::info(f.op).family == vcode::Family::Scan;
    many.push_back(with_combine(f.op, type, [&]<class C>() -> std::unique_ptr<ManyFold> {
      if (scans) {  // view() refuses a wide descriptor: a scan's result is as long
        const SegmentView sd = view(f.segments);
        Vector out = f.scanned.storage ? std::move(f.scanned) : allocate(type, domain);
        return std::make_unique<TypedManyScan<C>>(f.op, sd, std::move(out));
      }
      if (is_wide(f.segments))
        return std::make_unique<TypedManyFold<C, WideSegmentView>>(wide_view(f.segments), f.node,
                                                                   f.node == root);
      return std::make_unique<TypedManyFold<C, SegmentView>>(view(f.segments), f.node,
                                                             f.node == root);
    }));
  }
  // The team reduce_segments takes for the folds that regroup, which the others may take too.
  const bool regroups =
      std::any_of(many.begin(), many.end(), [](const auto& m) { return m->regroups(); });
  const int team = regroups ? ctx.par.fixed_team_for(domain, kMemoryBoundThreshold)
                          : ctx.par.team_for(domain, kMemoryBoundThreshold);
  const std::size_t blocks = blocks_for_team(team);
  DivisionFault fault;
  std::mutex fault_mutex;
  auto run_part = [&](std::size_t b) {
    std::vector<std::unique_ptr<ManyFold::PartState>> parts;
    for (const auto& m : many) parts.push_back(m->part(b, blocks));
    const Part p = blocks <= 1 ? Part{0, domain, 0, 0, 0}
                               : Part{block_begin(domain, b, blocks),
                                      block_begin(domain, b + 1, blocks), 0, 0, 0};
    Frame frame(call);
    for (std::size_t lo = p.begin; lo < p.end;) {
      const std::size_t hi = lo + std::min<std::size_t>(frame.block(), p.end - lo);
      const void* values = frame.evaluate(lo, hi, nullptr);
      for (std::size_t k = 0; k < parts.size(); ++k)
        parts[k]->add(folds[k].node == root ? values : frame.values_of(folds[k].node), lo, hi);
      lo = hi;
    }
    for (const auto& part : parts) part->finish();
    std::lock_guard lock(fault_mutex);
    fault.keep_lowest(frame.fault());
  };
  for (const auto& m : many) m->begin(blocks);
  if (team <= 1)
    run_part(0);
  else
    run_blocks(team, blocks, run_part);
  if (fault.found()) fault.raise();
  std::vector<Vector> results;
  for (const auto& m : many) results.push_back(m->result(ctx, call));
  return results;
}

namespace {

// A pending expression's values a block at a time, in one frame.
class FrameBlocks final : public PendingBlocks {
 public:
  explicit FrameBlocks(LazyExpression& expression)
      : prepared_(plan_for(*expression.ctx, expression.definition)),
        call_(static_cast<const CpuSuperOp&>(*prepared_), expression.operands, expression.domain),
        frame_(call_) {}

  std::size_t block() const override { return frame_.block(); }

  const void* values(std::size_t lo, std::size_t hi) override {
    const void* values = frame_.evaluate(lo, hi, nullptr);
    // Pending expressions hold no INT division.
    if (frame_.fault().found()) frame_.fault().raise();
    return values;
  }

 private:
  std::shared_ptr<const PreparedSuperOp> prepared_;
  Call call_;
  Frame frame_;
};

class FusedEvaluator final : public Evaluator {
 public:
  std::unique_ptr<PreparedSuperOp> prepare(const Context& ctx, const SuperOp& op,
                                           std::vector<std::uint32_t> outputs) const override {
    return prepare_fused(ctx, op, std::move(outputs));
  }
  Vector evaluate(const Context& ctx, const PreparedSuperOp& op, std::span<FusedOperand> operands,
                  std::size_t domain, bool* first_held_nan) const override {
    return fused(ctx, op, operands, domain, first_held_nan);
  }
  std::vector<Vector> evaluate_outputs(const Context& ctx, const PreparedSuperOp& op,
                                       std::span<FusedOperand> operands,
                                       std::size_t domain) const override {
    return fused_outputs(ctx, op, operands, domain);
  }
  std::vector<Vector> evaluate_folds(const Context& ctx, const PreparedSuperOp& op,
                                     std::span<FusedOperand> operands, std::size_t domain,
                                     std::span<FoldOfValues> folds) const override {
    return fused_folds(ctx, op, operands, domain, folds);
  }
  std::unique_ptr<PendingBlocks> blocks(LazyExpression& expression) const override {
    return std::make_unique<FrameBlocks>(expression);
  }
};

}  // namespace

const Evaluator& fused_evaluator() {
  static const FusedEvaluator evaluator;
  return evaluator;
}

}  // namespace cvl::cpu
