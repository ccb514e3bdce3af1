// Vector instructions: operand checks (the `-c` rules of spec/VCODE.md §7, always on) and the
// call into the backend.
#include <array>


#include "machine.hpp"

namespace vm {

using vcode::Instruction;
using vcode::Op;

void Machine::exec_vector(const Instruction& ins, const Prepared& prep) {
  if (ins.op == Op::Fused) return exec_fused(ins);
  if (ins.op == Op::Length && !stack_.empty() && stack_.back().kind == Kind::Segdes)
    fail("applying LENGTH to a segment descriptor");
  if (ins.op == Op::Lengths && !stack_.empty() && stack_.back().kind != Kind::Segdes)
    fail("applying LENGTHS to a non-segment descriptor");
  check_operands(ins, prep);
  const std::size_t k = prep.arity;
  std::array<Value, 6> args;
  for (std::size_t a = 0; a < k; ++a) args[a] = std::move(stack_[stack_.size() - k + a]);
  stack_.resize(stack_.size() - k);

  // The length rules of spec/VCODE.md §7, from ops.def (vcode/length_rules.hpp); pending lengths
  // are checked at the next synchronization (length_checks.cpp).
  std::array<cvl::RuleOperand, 6> counts;
  for (std::size_t a = 0; a < k; ++a)
    counts[a] = {&args[a].length_of(), &args[a].segments_of(), &args[a].total_of()};
  require_length_rules(vcode::length_rules(ins.op), std::span(counts.data(), k));

  switch (vcode::info(ins.op).family) {
    case vcode::Family::Elementwise: {
      std::array<cvl::Vector, 3> operands;
      for (std::size_t a = 0; a < k; ++a) operands[a] = args[a].take_vector();
      push(Value::of(backend_.elementwise(ins.op, prep.type, std::span(operands.data(), k))));
      return;
    }
    case vcode::Family::Random:
      push(Value::of(backend_.random(args[0].take_vector(), random_)));
      return;
    case vcode::Family::Scan:
      push(Value::of(backend_.scan(ins.op, args[0].take_vector(), args[1].segdes())));
      return;
    case vcode::Family::Reduce:
      push(Value::of(backend_.reduce(ins.op, args[0].take_vector(), args[1].segdes())));
      return;
    case vcode::Family::Rank:
      push(Value::of(backend_.rank(ins.op, args[0].take_vector(), args[1].segdes())));
      return;
    case vcode::Family::Permute: {
      // Operands from the ops.def letters: v i [f] [d] sd_s [sd_d].
      cvl::PermuteOperands p;
      std::size_t next = 2;
      const std::size_t flags = vcode::permute_has_flags(ins.op) ? next++ : 0;
      const std::size_t defaults = vcode::permute_has_defaults(ins.op) ? next++ : 0;
      const std::size_t source = next++;
      const std::size_t dest = next < k ? next : 0;
      if (flags) p.flags = args[flags].take_vector();
      if (defaults) p.defaults = args[defaults].take_vector();
      p.source_segdes = args[source].segdes();
      if (dest) p.dest_segdes = args[dest].segdes();
      p.values = args[0].take_vector();
      p.indices = args[1].take_vector();
      push(Value::of(backend_.permute(ins.op, std::move(p))));
      return;
    }
    case vcode::Family::Vector:
      switch (ins.op) {
        case Op::Extract:  // v i sd
          push(Value::of(backend_.extract(args[0].take_vector(), args[1].take_vector(), args[2].segdes())));
          return;
        case Op::Replace:  // v i x sd
          push(Value::of(backend_.replace(args[0].take_vector(), args[1].take_vector(),
                                          args[2].take_vector(), args[3].segdes())));
          return;
        case Op::Dist:  // x sd
          push(Value::of(backend_.distribute(args[0].take_vector(), args[1].segdes())));
          return;
        case Op::Index:  // s t sd
          push(Value::of(backend_.index(args[0].take_vector(), args[1].take_vector(), args[2].segdes())));
          return;
        default:
          fail_internal("not a vector instruction");
      }
    case vcode::Family::Pack: {  // v f sd
      auto [data, segdes] = backend_.pack(args[0].take_vector(), args[1].take_vector(), args[2].segdes());
      push(Value::of(std::move(data)));
      push(Value::of(std::move(segdes)));
      return;
    }
    case vcode::Family::Segdes:
      switch (ins.op) {
        case Op::Length:  // of a vector streamed over a wide descriptor: longer than an INT
          require_at_most(args[0].length_of(), cvl::kMaxVectorLength,
                          [](std::size_t n, std::size_t) { return cvl::vector_too_long_message(n); });
          push(Value::of(backend_.length_value(args[0].length_of())));
          return;
        case Op::MakeSegdes:
          push(segdes_from_data(backend_.make_segdes(args[0].take_vector())));
          return;
        case Op::Lengths:
          push(Value::of(backend_.segment_lengths(args[0].segdes())));
          return;
        default:
          fail_internal("not a segdes instruction");
      }
    default:
      fail_internal("instruction has no executor");
  }
}

}  // namespace vm
