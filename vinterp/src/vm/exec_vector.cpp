// Vector instructions: operand checks (the `-c` rules of spec/VCODE.md §7, always on) and the
// call into the backend.
#include <array>

#include "machine.hpp"

namespace vm {

using vcode::Instruction;
using vcode::Op;

namespace {

std::string length_mismatch(std::size_t a, std::size_t len_a, std::size_t b, std::size_t len_b) {
  return "length mismatch between args " + std::to_string(a) + "(" + std::to_string(len_a) +
         ") and " + std::to_string(b) + "(" + std::to_string(len_b) + ")";
}

}  // namespace

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

  // The length rules of spec/VCODE.md §7 (length_checks.cpp: pending lengths are checked at the
  // next synchronization).
  auto same_length = [&](std::size_t a, std::size_t b) {
    require_equal(args[a].length_of(), args[b].length_of(),
                  [a, b](std::size_t len_a, std::size_t len_b) {
                    return length_mismatch(a, len_a, b, len_b);
                  });
  };
  // Segdes argument `s` must describe exactly the elements of vector argument `v`.
  auto describes = [&](std::size_t s, std::size_t v) {
    require_equal(args[s].total_of(), args[v].length_of(),
                  [s, v](std::size_t total, std::size_t length) {
                    return "args " + std::to_string(v) + " and " + std::to_string(s) +
                           " are incompatible: the segment descriptor describes " +
                           std::to_string(total) + " elements, the vector has " +
                           std::to_string(length);
                  });
  };
  // Vector argument `v` must have one element per segment of segdes argument `s`.
  auto one_per_segment = [&](std::size_t v, std::size_t s) {
    require_equal(args[v].length_of(), args[s].segments_of(),
                  [v, s](std::size_t length, std::size_t segments) {
                    return "args " + std::to_string(v) + " and " + std::to_string(s) +
                           " are incompatible: " + std::to_string(length) + " elements for " +
                           std::to_string(segments) + " segments";
                  });
  };
  auto same_segments = [&](std::size_t a, std::size_t b) {
    require_equal(args[a].segments_of(), args[b].segments_of(),
                  [a, b](std::size_t segments_a, std::size_t segments_b) {
                    return "args " + std::to_string(a) + " and " + std::to_string(b) +
                           " are incompatible: " + std::to_string(segments_a) + " and " +
                           std::to_string(segments_b) + " segments";
                  });
  };

  switch (vcode::info(ins.op).family) {
    case vcode::Family::Elementwise: {
      for (std::size_t a = 1; a < k; ++a) same_length(0, a);
      std::array<cvl::Vector, 3> operands;
      for (std::size_t a = 0; a < k; ++a) operands[a] = args[a].take_vector();
      push(Value::of(backend_.elementwise(ins.op, prep.type, std::span(operands.data(), k))));
      return;
    }
    case vcode::Family::Random:
      push(Value::of(backend_.random(args[0].take_vector(), random_)));
      return;
    case vcode::Family::Scan:
      describes(1, 0);
      push(Value::of(backend_.scan(ins.op, args[0].take_vector(), args[1].segdes())));
      return;
    case vcode::Family::Reduce:
      describes(1, 0);
      push(Value::of(backend_.reduce(ins.op, args[0].take_vector(), args[1].segdes())));
      return;
    case vcode::Family::Rank:
      describes(1, 0);
      push(Value::of(backend_.rank(ins.op, args[0].take_vector(), args[1].segdes())));
      return;
    case vcode::Family::Permute: {
      // Operands from the ops.def letters: v i [f] [d] sd_s [sd_d]. Scatters (Shape) index
      // destinations: v, i and f agree, sd_s describes v, sd_d describes d; gathers index
      // sources: i and f agree, sd_s describes v, sd_d describes i.
      cvl::PermuteOperands p;
      const bool gather = vcode::info(ins.op).shape == vcode::Shape::Gather;
      std::size_t next = 2;
      const std::size_t flags = vcode::permute_has_flags(ins.op) ? next++ : 0;
      const std::size_t defaults = vcode::permute_has_defaults(ins.op) ? next++ : 0;
      const std::size_t source = next++;
      const std::size_t dest = next < k ? next : 0;
      if (!gather) same_length(0, 1);
      if (flags) same_length(gather ? 1 : 0, flags);
      describes(source, 0);
      if (gather) describes(dest, 1);
      if (defaults) describes(dest, defaults);
      if (dest) same_segments(source, dest);
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
          describes(2, 0);
          one_per_segment(1, 2);
          push(Value::of(backend_.extract(args[0].take_vector(), args[1].take_vector(), args[2].segdes())));
          return;
        case Op::Replace:  // v i x sd
          same_length(1, 2);
          describes(3, 0);
          one_per_segment(1, 3);
          push(Value::of(backend_.replace(args[0].take_vector(), args[1].take_vector(),
                                          args[2].take_vector(), args[3].segdes())));
          return;
        case Op::Dist:  // x sd
          one_per_segment(0, 1);
          push(Value::of(backend_.distribute(args[0].take_vector(), args[1].segdes())));
          return;
        case Op::Index:  // s t sd
          same_length(0, 1);
          one_per_segment(0, 2);
          push(Value::of(backend_.index(args[0].take_vector(), args[1].take_vector(), args[2].segdes())));
          return;
        default:
          fail_internal("not a vector instruction");
      }
    case vcode::Family::Pack: {  // v f sd
      same_length(0, 1);
      describes(2, 0);
      auto [data, segdes] = backend_.pack(args[0].take_vector(), args[1].take_vector(), args[2].segdes());
      push(Value::of(std::move(data)));
      push(Value::of(std::move(segdes)));
      return;
    }
    case vcode::Family::Segdes:
      switch (ins.op) {
        case Op::Length:
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
