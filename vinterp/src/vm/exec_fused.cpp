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

  // The length rules of its analysis (vcode/length_rules.hpp), as for any instruction.
  std::vector<cvl::RuleOperand> counts(k);
  for (std::size_t a = 0; a < k; ++a)
    counts[a] = {&arg(a).length_of(), &arg(a).segments_of(), &arg(a).total_of()};
  require_length_rules(superop_rules_[static_cast<std::size_t>(ins.count)], counts);

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
