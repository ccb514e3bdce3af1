// FUSED on the device: a superoperator (vcode/superop.hpp) is flattened once into a plan, and a
// generic interpreter kernel evaluates its elementwise body, one value per node, in a single
// pass; a scan or reduction at the root then runs as the library's scan/reduce over that body.
// (Per-superoperator kernels compiled by NVRTC would replace the interpreter on a GPU; not built
// yet, see the report / README.)
#pragma once

#include <cstdint>
#include <vector>

#include "device.hpp"
#include "handles.hpp"
#include "kernels/scalar_apply.hpp"
#include "vcode/superop.hpp"

namespace cvl::CVL_CUDA_NS::fused {

enum class RootKind : std::uint8_t { Elementwise, Scan, Reduce };

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
  SegMap segdes;
};

struct Plan {
  std::vector<Node> nodes;  // the body: every node but a scan/reduce root
  std::uint32_t body_root = 0;
  Type body_type = Type::Int;
  RootKind root_kind = RootKind::Elementwise;
  vcode::Op root_op = vcode::Op::Add;
  std::uint32_t root_segdes = 0;  // the operand number of the root's descriptor
};

Plan plan(const vcode::SuperOp& op);

// out[j] = the body at element j, for j < domain. Traps of INT / and % record `fault`.
void evaluate(Device& device, const Plan& plan, const std::vector<OperandView>& operands,
              std::size_t domain, void* out, unsigned long long* fault);

}  // namespace cvl::CVL_CUDA_NS::fused
