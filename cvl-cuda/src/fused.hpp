// FUSED on the device: a superoperator (vcode/superop.hpp) is flattened once, when it is
// prepared, into a plan by its analysis (vcode/superop_analysis.hpp), and a generic interpreter
// kernel evaluates its elementwise body, one value per node, in a single pass; a scan or
// reduction at the root then runs as the library's scan/reduce over that body. On a GPU the
// per-superoperator kernels NVRTC compiles (jit.hpp) replace the interpreter where they can.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device.hpp"
#include "handles.hpp"
#include "kernels/scalar_apply.hpp"
#include "vcode/superop.hpp"
#include "vcode/superop_analysis.hpp"

namespace cvl::CVL_CUDA_NS::fused {

// A node as the kernel reads it.
struct Node {
  vcode::SuperOpNode::Kind kind;
  vcode::Op op;
  Type type;             // the op's type / the constant's type / an operand's element type
  bool read_at_element;  // an operand read at j (not only as a DIST/INDEX leaf)
  std::uint32_t operand;
  Scalar constant;
  std::uint8_t arity;
  std::uint32_t args[3];
};

// What an operand is on the device: element data, or a descriptor's map.
struct OperandView {
  const void* data = nullptr;
  Type type = Type::Int;
  SegmentView segdes;
};

// A call's operand views, passed with the launch itself (in the kernel's arguments): a call
// copies nothing to the device before its kernel.
struct OperandViews {
  OperandView at[cuda_tuning::kMaxFusedOperands];
};

struct Plan {
  std::vector<Node> nodes;  // the body: every node up to the analysis's values node
  std::uint32_t body_root = 0;
  Type body_type = Type::Int;
  std::size_t operands = 0;  // the superoperator's
};

Plan plan(const vcode::SuperOp& op, const vcode::SuperOpAnalysis& analysis);

// The interpreter's side of one prepared superoperator: the plan and its node array on the device
// (uploaded at the first evaluation, then kept); each call's operand views go with its launch.
class Interpreter {
 public:
  explicit Interpreter(Plan plan) : plan_(std::move(plan)) {}

  const Plan& plan() const { return plan_; }
  // Whether the kernel holds the body (at most cuda_tuning::kMaxFusedNodes nodes and
  // kMaxFusedOperands operands); a larger superoperator runs op by op (cvl::run_unfused) where no
  // compiled kernel exists.
  bool fits() const {
    return plan_.nodes.size() <= cuda_tuning::kMaxFusedNodes &&
           plan_.operands <= cuda_tuning::kMaxFusedOperands;
  }
  // out[j - first] = the body at element j, for first <= j < domain.items(). Traps of INT / and
  // % record `fault` (at j). The body must fit (an InternalError otherwise).
  void evaluate(const std::shared_ptr<Device>& device, std::uint32_t superop_id,
                const std::vector<OperandView>& operands, std::size_t first, Extent domain,
                void* out, unsigned long long* fault);

 private:
  Plan plan_;
  DeviceBuffer nodes_;
};

// What one evaluation of `plan`'s body reads and writes (device.hpp: Traffic), the interpreter's or
// a compiled kernel's: per element each operand read at the element and the result; per DIST or
// INDEX leaf its descriptor's segment lookup and its per-segment operands once.
Traffic body_traffic(const Plan& plan, const std::vector<OperandView>& operands);

// A reduction root streamed in chunks: the body is evaluated a chunk at a time into a buffer of
// stream_chunk_elements() elements and each chunk folded into the result, which holds every
// segment's running value, so that nothing of the domain's length is stored. How a chunk is
// folded (kernels/streamed_fold.hpp): sequentially in each segment, as spec/CVL.md §8 asks of
// FLOAT (the emulation's way: byte for byte cvl-cpu's at one thread), or by lanes (the GPU's:
// no thread folds a whole segment; FLOAT sums and products grouped in lanes, as the library's
// CUB reductions group them in their own way).
class StreamedFold {
 public:
  // Sets each of the sd.segments entries of `result` (of `type`) to `op`'s identity.
  StreamedFold(const std::shared_ptr<Device>& device, vcode::Op op, Type type,
               const SegmentView& sd, void* result);
  // Folds elements first..end.items()-1, element j at chunk[j - first], into the result; at most
  // stream_chunk_elements() of them.
  void add(std::size_t first, Extent end, const void* chunk);

 private:
  std::shared_ptr<Device> device_;
  vcode::Op op_;
  Type type_;
  SegmentView sd_;
  void* result_;
  bool by_lanes_;
  DeviceBuffer parts_, has_nan_;  // by lanes: each lane's part
};

// The elements a streamed reduction evaluates at a time: NESL_CUDA_STREAM_CHUNK when set (the
// tests cut small programs into many chunks), else cuda_tuning::kStreamChunkElements.
std::size_t stream_chunk_elements();
// The elements past which a reduction of pending results (pending_expression.hpp) is streamed:
// NESL_CUDA_STREAM_CHUNK when set (as for FUSED, so that tests cut small programs), else
// cuda_tuning::kPendingStreamElements.
std::size_t pending_stream_elements();
// Whether streamed reductions fold by lanes: NESL_CUDA_STREAM_FOLD=lanes or =sequential when set
// (the tests run the GPU's way in the emulation), else on a GPU only.
bool stream_fold_by_lanes();

}  // namespace cvl::CVL_CUDA_NS::fused
