// Flattening of superoperators and the launch of the FUSED interpreter kernel (fused.hpp).
#include <string>

#include "cvl/op_dispatch.hpp"
#include "kernels/fused_interpreter.hpp"

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
                           const std::vector<OperandView>& operands, Extent domain, void* out,
                           unsigned long long* fault) {
  if (!fits())
    throw InternalError("FUSED: superoperator " + std::to_string(superop_id) + " has " +
                std::to_string(plan_.nodes.size()) + " nodes and " +
                std::to_string(plan_.operands) + " operands; the interpreter kernel takes at most " +
                std::to_string(cuda_tuning::kMaxFusedNodes) + " and " +
                std::to_string(cuda_tuning::kMaxFusedOperands));
  if (operands.size() != plan_.operands)
    throw InternalError("FUSED: superoperator " + std::to_string(superop_id) + " called with " +
                        std::to_string(operands.size()) + " operands");
  if (domain.bound == 0) return;
  if (!nodes_.allocated()) {
    nodes_ = DeviceBuffer(device, plan_.nodes.size() * sizeof(Node));
    device->copy_to_device(nodes_.get(), plan_.nodes.data(), nodes_.bytes());
  }
  OperandViews views;
  for (std::size_t i = 0; i < operands.size(); ++i) views.at[i] = operands[i];
  device->launch(domain, kernels::FusedInterpreter{
                             nodes_.as<Node>(), static_cast<std::uint32_t>(plan_.nodes.size()),
                             plan_.body_root, views, out, plan_.body_type, fault});
}

}  // namespace cvl::CVL_CUDA_NS::fused
