// Flattening of superoperators and the launch of the FUSED interpreter kernel (fused.hpp).
#include <string>

#include "kernels/fused_interpreter.hpp"

namespace cvl::CVL_CUDA_NS::fused {
namespace {

using Kind = vcode::SuperOpNode::Kind;

Type element_type(vcode::TypeKeyword t) {
  return t == vcode::TypeKeyword::Float  ? Type::Float
         : t == vcode::TypeKeyword::Bool ? Type::Bool
                                         : Type::Int;
}

}  // namespace

Plan plan(const vcode::SuperOp& op) {
  Plan p;
  const auto& nodes = op.nodes;
  if (nodes.empty())
    throw InternalError("FUSED: superoperator " + std::to_string(op.id) + " is empty");
  const vcode::SuperOpNode& root = op.root();
  std::size_t body_count = nodes.size();
  p.body_root = static_cast<std::uint32_t>(nodes.size() - 1);
  if (root.kind == Kind::Scan || root.kind == Kind::Reduce) {
    p.root_kind = root.kind == Kind::Scan ? RootKind::Scan : RootKind::Reduce;
    p.root_op = root.op;
    p.root_segdes = nodes[root.args[1]].operand;
    p.body_root = root.args[0];
    body_count = nodes.size() - 1;
  }
  if (body_count > cuda_tuning::kMaxFusedNodes)
    throw Error("FUSED: superoperator " + std::to_string(op.id) + " has " +
                std::to_string(body_count) + " nodes; the interpreter kernel takes at most " +
                std::to_string(cuda_tuning::kMaxFusedNodes));
  p.body_type = element_type(nodes[p.body_root].result);
  p.nodes.resize(body_count);
  for (std::size_t i = 0; i < body_count; ++i) {
    const vcode::SuperOpNode& n = nodes[i];
    Node& out = p.nodes[i];
    out.kind = n.kind;
    out.op = n.op;
    out.type = element_type(n.kind == Kind::Operand ? n.result : n.type);
    out.read_at_element = false;
    out.operand = n.operand;
    out.constant = Scalar{n.float_value, n.int_value};
    out.arity = n.arity;
    for (int a = 0; a < 3; ++a) out.args[a] = n.args[a];
  }
  // Operands are read at j when an elementwise node (or the body itself) uses them; DIST and
  // INDEX leaves have one element per segment and are read at the segment instead.
  auto mark = [&](std::uint32_t i) {
    if (i < body_count && p.nodes[i].kind == Kind::Operand &&
        nodes[i].result != vcode::TypeKeyword::Segdes)
      p.nodes[i].read_at_element = true;
  };
  mark(p.body_root);
  for (std::size_t i = 0; i < body_count; ++i)
    if (p.nodes[i].kind == Kind::Elementwise)
      for (std::uint8_t a = 0; a < p.nodes[i].arity; ++a) mark(p.nodes[i].args[a]);
  return p;
}

void evaluate(Device& device, const Plan& plan, const std::vector<OperandView>& operands,
              std::size_t domain, void* out, unsigned long long* fault) {
  if (domain == 0) return;
  DeviceBuffer nodes(borrow(device), plan.nodes.size() * sizeof(Node));
  DeviceBuffer views(borrow(device), operands.size() * sizeof(OperandView));
  device.copy_to_device(nodes.get(), plan.nodes.data(), nodes.bytes());
  device.copy_to_device(views.get(), operands.data(), views.bytes());
  device.launch(domain, kernels::FusedInterpreter{
                            nodes.as<Node>(), static_cast<std::uint32_t>(plan.nodes.size()),
                            plan.body_root, views.as<OperandView>(), out, plan.body_type, fault});
}

}  // namespace cvl::CVL_CUDA_NS::fused
