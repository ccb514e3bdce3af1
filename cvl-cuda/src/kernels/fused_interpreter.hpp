// The FUSED interpreter kernel body: evaluates a flattened superoperator at element j.
#pragma once

#include "fused.hpp"
#include "tuning.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

struct FusedInterpreter {
  const fused::Node* nodes;
  std::uint32_t count;
  std::uint32_t result;
  fused::OperandViews operands;  // with the launch: read where the kernel's arguments live
  std::size_t first;             // item i is element first + i, written to out[i]
  Extent domain;                 // the elements that exist: below domain.items()
  void* out;
  Type out_type;
  unsigned long long* fault;

  // A DIST/INDEX leaf at segment k: an operand's element k or a constant.
  CVL_HD Scalar leaf(const fused::Node& node, std::size_t k) const {
    if (node.kind == vcode::SuperOpNode::Kind::Operand) {
      const fused::OperandView& o = operands.at[node.operand];
      return load_element(o.data, o.type, k);
    }
    return node.constant;
  }

  CVL_HD void operator()(std::size_t i) const {
    using Kind = vcode::SuperOpNode::Kind;
    const std::size_t j = first + i;
    if (j >= domain.items()) return;
    Scalar value[cuda_tuning::kMaxFusedNodes];
    TrapNote trap;
    for (std::uint32_t n = 0; n < count; ++n) {
      const fused::Node& node = nodes[n];
      Scalar r{0.0, 0};
      switch (node.kind) {
        case Kind::Operand:
          if (node.read_at_element) {
            const fused::OperandView& o = operands.at[node.operand];
            r = load_element(o.data, o.type, j);
          }
          break;
        case Kind::Constant:
          r = node.constant;
          break;
        case Kind::Elementwise:
          r = apply_op(node.op, node.type, value[node.args[0]], value[node.args[1]],
                       value[node.args[2]], trap);
          break;
        case Kind::Dist: {
          // A constant is the same in every segment: no segment to find (nor index to read).
          const fused::Node& value = nodes[node.args[0]];
          if (value.kind != Kind::Operand) {
            r = value.constant;
            break;
          }
          const SegmentView& sd = operands.at[nodes[node.args[1]].operand].segdes;
          r = leaf(value, sd.segment_of(j));
          break;
        }
        case Kind::Index: {
          const SegmentView& sd = operands.at[nodes[node.args[2]].operand].segdes;
          const std::size_t k = sd.segment_of(j);
          r.i = cvl_sem::index_value(leaf(nodes[node.args[0]], k).i, leaf(nodes[node.args[1]], k).i,
                                     static_cast<std::uint32_t>(j - sd.start(k)));
          break;
        }
        default:
          break;
      }
      value[n] = r;
    }
    if (trap.trapped) record_fault(fault, cvl_sem::trap_word(j, trap.divisor));
    store_element(out, out_type, i, value[result]);
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
