// FCODE `FUSED n`: checks the operands against superoperator n's declared kinds and length rules
// (vcode/superop.hpp), then hands the whole expression to the backend in one call.
#include "machine.hpp"

namespace vm {

using vcode::Instruction;

void Machine::exec_fused(const Instruction& ins) {
  // The loader checked that every FUSED names a definition.
  const vcode::SuperOp& op = program_.superops[static_cast<std::size_t>(ins.count)];
  if (superop_uses_.empty())
    for (const vcode::SuperOp& s : program_.superops) superop_uses_.push_back(vcode::operand_uses(s));
  const std::vector<vcode::OperandUse>& uses = superop_uses_[op.id];
  const std::string name = "FUSED " + std::to_string(ins.count);

  const std::size_t k = op.operands.size();
  if (stack_.size() < k)
    fail("stack underflow: " + name + " needs " + std::to_string(k) + " values, the stack has " +
         std::to_string(stack_.size()));
  const std::size_t base = stack_.size() - k;
  auto arg = [&](std::size_t a) -> const Value& { return stack_[base + a]; };
  for (std::size_t a = 0; a < k; ++a) {
    Kind want = kind_of(op.operands[a]);
    if (arg(a).kind != want)
      fail(name + ": operand " + std::to_string(a) + " is " + kind_name(arg(a).kind) +
           ", expected " + kind_name(want));
  }

  // The domain: the length of the first operand read elementwise, else the first descriptor's.
  std::size_t source = k;
  for (std::size_t a = 0; a < k && source == k; ++a)
    if (uses[a].elementwise) source = a;
  for (std::size_t a = 0; a < k && source == k; ++a)
    if (uses[a].segdes) source = a;
  if (source == k) fail(name + ": no operand fixes the length");  // excluded at load time
  const std::size_t domain = uses[source].elementwise ? arg(source).length() : arg(source).total();

  for (std::size_t a = 0; a < k; ++a) {
    const Value& v = arg(a);
    if (uses[a].elementwise && v.length() != domain)
      fail("length mismatch between args " + std::to_string(source) + "(" +
           std::to_string(domain) + ") and " + std::to_string(a) + "(" +
           std::to_string(v.length()) + ")");
    if (uses[a].segdes && v.total() != domain)
      fail("args " + std::to_string(source) + " and " + std::to_string(a) +
           " are incompatible: the segment descriptor describes " + std::to_string(v.total()) +
           " elements, the vector has " + std::to_string(domain));
    for (std::uint32_t s : uses[a].per_segment_of)
      if (v.length() != arg(s).length())
        fail("args " + std::to_string(a) + " and " + std::to_string(s) + " are incompatible: " +
             std::to_string(v.length()) + " elements for " + std::to_string(arg(s).length()) +
             " segments");
  }

  std::vector<cvl::FusedOperand> operands(k);
  for (std::size_t a = 0; a < k; ++a) {
    Value& v = stack_[base + a];
    if (v.kind == Kind::Segdes) operands[a].segdes = v.take_segdes();
    else operands[a].vector = v.take_vector();
  }
  stack_.resize(base);
  push(Value::of(backend_.fused(op, operands, domain)));
}

}  // namespace vm
