// FCODE `FUSED n`: checks the operands against superoperator n's declared kinds and length rules
// (vcode/superop.hpp, through its analysis), then hands the whole expression to the backend's
// plan of it in one call.
#include "machine.hpp"

namespace vm {

using vcode::Instruction;

void Machine::exec_fused(const Instruction& ins) {
  // The loader checked that every FUSED names a definition; prepare() planned each one.
  const cvl::PreparedSuperOp& plan = *superops_[static_cast<std::size_t>(ins.count)];
  const vcode::SuperOp& op = plan.definition;
  const std::vector<vcode::OperandUse>& uses = plan.analysis.operands;
  auto name = [&] { return "FUSED " + std::to_string(ins.count); };

  const std::size_t k = op.operands.size();
  if (stack_.size() < k)
    fail("stack underflow: " + name() + " needs " + std::to_string(k) +
         " values, the stack has " + std::to_string(stack_.size()));
  const std::size_t base = stack_.size() - k;
  auto arg = [&](std::size_t a) -> const Value& { return stack_[base + a]; };
  for (std::size_t a = 0; a < k; ++a) {
    Kind want = kind_of(op.operands[a]);
    if (arg(a).kind != want)
      fail(name() + ": operand " + std::to_string(a) + " is " + kind_name(arg(a).kind) +
           ", expected " + kind_name(want));
  }

  // The domain: the length of the first operand read elementwise, else the first descriptor's
  // total (the loader made sure one of them exists).
  const std::size_t source = plan.analysis.domain_operand;
  if (source >= k || !(plan.analysis.domain_is_total ? uses[source].segdes
                                                     : uses[source].elementwise))
    fail_internal(name() + ": no operand fixes the length");  // excluded at load time
  const cvl::Length domain =
      plan.analysis.domain_is_total ? arg(source).total_of() : arg(source).length_of();

  for (std::size_t a = 0; a < k; ++a) {
    const Value& v = arg(a);
    if (uses[a].elementwise)
      require_equal(domain, v.length_of(), [source, a](std::size_t n, std::size_t length) {
        return "length mismatch between args " + std::to_string(source) + "(" +
               std::to_string(n) + ") and " + std::to_string(a) + "(" + std::to_string(length) +
               ")";
      });
    if (uses[a].segdes)
      require_equal(domain, v.total_of(), [source, a](std::size_t n, std::size_t total) {
        return "args " + std::to_string(source) + " and " + std::to_string(a) +
               " are incompatible: the segment descriptor describes " + std::to_string(total) +
               " elements, the vector has " + std::to_string(n);
      });
    for (std::uint32_t s : uses[a].per_segment_of)
      require_equal(v.length_of(), arg(s).segments_of(),
                    [a, s](std::size_t length, std::size_t segments) {
                      return "args " + std::to_string(a) + " and " + std::to_string(s) +
                             " are incompatible: " + std::to_string(length) + " elements for " +
                             std::to_string(segments) + " segments";
                    });
  }

  // The operands go to the backend (backend.hpp: it may take them); the buffer is kept between
  // calls, emptied so that no handle outlives the call.
  std::vector<cvl::FusedOperand>& operands = fused_operands_;
  operands.resize(k);
  for (std::size_t a = 0; a < k; ++a) {
    Value& v = stack_[base + a];
    if (v.kind == Kind::Segdes) operands[a].segdes = v.take_segdes();
    else operands[a].vector = v.take_vector();
  }
  stack_.resize(base);
  cvl::Vector result = backend_.fused(plan, operands, domain);
  operands.clear();
  push(Value::of(std::move(result)));
}

}  // namespace vm
