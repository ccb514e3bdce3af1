// Flattening of superoperators and the launch of the FUSED interpreter kernel (fused.hpp).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "cvl/op_dispatch.hpp"
#include "kernels/fused_interpreter.hpp"
#include "kernels/streamed_fold.hpp"
#include "traffic.hpp"

namespace cvl::CVL_CUDA_NS::fused {
namespace {

using Kind = vcode::SuperOpNode::Kind;

}  // namespace

Plan plan(const vcode::SuperOp& op, const vcode::SuperOpAnalysis& analysis) {
  Plan p;
  p.body_root = analysis.values_node;
  p.body_type = to_type(analysis.values_type);
  p.operands = op.operands.size();
  const std::size_t body_count = op.nodes.empty() ? 0 : p.body_root + 1;
  p.nodes.resize(body_count);
  for (std::size_t i = 0; i < body_count; ++i) {
    const vcode::SuperOpNode& n = op.nodes[i];
    Node& out = p.nodes[i];
    out.kind = n.kind;
    out.op = n.op;
    out.type = to_type(n.kind == Kind::Operand ? n.result : n.type);
    // Operands are read at j when an elementwise node (or the body itself) uses them; DIST and
    // INDEX leaves have one element per segment and are read at the segment instead.
    out.read_at_element =
        n.kind == Kind::Operand && analysis.roles[i] == vcode::NodeRole::Element;
    out.operand = n.operand;
    out.constant = Scalar{n.float_value, n.int_value};
    out.arity = n.arity;
    for (int a = 0; a < 3; ++a) out.args[a] = n.args[a];
  }
  return p;
}

void Interpreter::evaluate(const std::shared_ptr<Device>& device, std::uint32_t superop_id,
                           const std::vector<OperandView>& operands, std::size_t first,
                           Extent domain, void* out, unsigned long long* fault) {
  if (!fits())
    throw InternalError("FUSED: superoperator " + std::to_string(superop_id) + " has " +
                std::to_string(plan_.nodes.size()) + " nodes and " +
                std::to_string(plan_.operands) + " operands; the interpreter kernel takes at most " +
                std::to_string(cuda_tuning::kMaxFusedNodes) + " and " +
                std::to_string(cuda_tuning::kMaxFusedOperands));
  if (operands.size() != plan_.operands)
    throw InternalError("FUSED: superoperator " + std::to_string(superop_id) + " called with " +
                        std::to_string(operands.size()) + " operands");
  if (domain.bound <= first) return;
  if (!nodes_.allocated()) {
    nodes_ = DeviceBuffer(device, plan_.nodes.size() * sizeof(Node));
    device->copy_to_device(nodes_.get(), plan_.nodes.data(), nodes_.bytes());
  }
  OperandViews views;
  for (std::size_t i = 0; i < operands.size(); ++i) views.at[i] = operands[i];
  device->launch(domain.bound - first,
                 kernels::FusedInterpreter{nodes_.as<Node>(),
                                           static_cast<std::uint32_t>(plan_.nodes.size()),
                                           plan_.body_root, views, first, domain, out,
                                           plan_.body_type, fault},
                 body_traffic(plan_, operands));
}

Traffic body_traffic(const Plan& plan, const std::vector<OperandView>& operands) {
  Traffic traffic{element_size(plan.body_type), 0};
  std::vector<bool> counted(operands.size(), false);
  auto once = [&](std::uint32_t operand) {
    if (operand >= counted.size() || counted[operand]) return false;
    counted[operand] = true;
    return true;
  };
  for (const Node& node : plan.nodes) {
    if (node.kind == Kind::Operand && node.read_at_element && once(node.operand))
      traffic.per_item += element_size(operands[node.operand].type);
    if (node.kind != Kind::Dist && node.kind != Kind::Index) continue;
    // A DIST of a constant reads nothing per segment and finds no segment (as the compiled
    // kernels, superop_cuda.cpp, and the interpreter kernel do).
    if (node.kind == Kind::Dist && plan.nodes[node.args[0]].kind != Kind::Operand) continue;
    // A leaf's value (or INDEX's start and stride) once per segment of the descriptor.
    const std::uint32_t descriptor = plan.nodes[node.args[node.kind == Kind::Dist ? 1 : 2]].operand;
    const SegmentView& sd = operands[descriptor].segdes;
    const int leaves = node.kind == Kind::Dist ? 1 : 2;
    for (int a = 0; a < leaves; ++a) {
      const Node& leaf = plan.nodes[node.args[a]];
      if (leaf.kind == Kind::Operand && once(leaf.operand))
        traffic.once += sd.segments * element_size(operands[leaf.operand].type);
    }
    if (!once(descriptor)) continue;
    traffic = traffic + traffic::segment_of(sd);
    if (node.kind == Kind::Index) traffic = traffic + traffic::offsets(sd);
  }
  return traffic;
}

StreamedFold::StreamedFold(const std::shared_ptr<Device>& device, vcode::Op op, Type type,
                           const SegmentView& sd, void* result)
    : device_(device), op_(op), type_(type), sd_(sd), result_(result),
      by_lanes_(stream_fold_by_lanes()) {
  const std::size_t lanes =
      (stream_chunk_elements() + kernels::kFoldLane - 1) / kernels::kFoldLane;
  if (by_lanes_) {
    parts_ = DeviceBuffer(device_, lanes * element_size(type_));
    has_nan_ = DeviceBuffer(device_, lanes * sizeof(bool));
  }
  visit_combiner(op_, type_, [&]<vcode::Op, class Sem, Type kType>() {
    using T = host_t<kType>;
    device_->launch(sd_.segments, kernels::FillIdentity<Sem, T>{static_cast<T*>(result_)},
                    Traffic{sizeof(T), 0});
  });
}

void StreamedFold::add(std::size_t first, Extent end, const void* chunk) {
  if (end.bound <= first || sd_.segments == 0) return;
  const std::size_t lanes = (end.bound - first + kernels::kFoldLane - 1) / kernels::kFoldLane;
  visit_combiner(op_, type_, [&]<vcode::Op, class Sem, Type kType>() {
    using T = host_t<kType>;
    const T* in = static_cast<const T*>(chunk);
    T* result = static_cast<T*>(result_);
    // The chunk read once; each lane finds its first segment and walks the offsets from there;
    // the running values of the segments it meets read and written (once a segment, at most).
    const std::size_t segments = std::min(sd_.segments, end.bound - first);
    const Traffic fold = traffic::segment_of(sd_) +
                         Traffic{0, (end.bound - first) * sizeof(T) + segments * 2 * sizeof(T)};
    if (!by_lanes_) {
      device_->launch(lanes, kernels::FoldChunk<Sem, T>{in, result, sd_, first, end}, fold);
      return;
    }
    // By lanes: the chunk read by the partials, each lane's part written and read once more.
    const Traffic part{2 * (sizeof(T) + sizeof(bool)), 0};
    device_->launch(lanes,
                    kernels::LanePartials<Sem, T>{in, parts_.as<T>(), has_nan_.as<bool>(), sd_,
                                                  first, end},
                    fold + part);
    device_->launch(lanes,
                    kernels::FoldLanes<Sem, T>{in, parts_.as<T>(), has_nan_.as<bool>(), result,
                                               sd_, first, end},
                    traffic::segment_of(sd_) + Traffic{0, segments * 2 * sizeof(T)});
  });
}

std::size_t stream_chunk_elements() {
  static const std::size_t elements = [] {
    const char* given = std::getenv("NESL_CUDA_STREAM_CHUNK");
    const long long n = given ? std::atoll(given) : 0;
    return n > 0 ? static_cast<std::size_t>(n) : cuda_tuning::kStreamChunkElements;
  }();
  return elements;
}

std::size_t pending_stream_elements() {
  static const std::size_t elements = [] {
    const char* given = std::getenv("NESL_CUDA_STREAM_CHUNK");
    return given && std::atoll(given) > 0
               ? stream_chunk_elements()
               : std::max(stream_chunk_elements(), cuda_tuning::kPendingStreamElements);
  }();
  return elements;
}

bool stream_fold_by_lanes() {
  static const bool by_lanes = [] {
    const char* given = std::getenv("NESL_CUDA_STREAM_FOLD");
    if (given && std::string(given) == "lanes") return true;
    if (given && std::string(given) == "sequential") return false;
    return bool(CVL_CUDA_REAL);
  }();
  return by_lanes;
}

}  // namespace cvl::CVL_CUDA_NS::fused
