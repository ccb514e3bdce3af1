#include "cvl/shape_contract.hpp"

#include <string_view>

#include "cvl/op_dispatch.hpp"

namespace cvl::contract {
namespace {

using vcode::Op;

// Messages are built only when a rule is broken.
std::string problem(std::string_view where, const std::string& what) {
  return std::string(where) + ": " + what;
}

// Only lengths known to differ break a rule here: the interpreter checks pending lengths at the
// next synchronization (backend.hpp).
std::string length_problem(std::string_view where, const char* what, const Vector& v,
                           const Length& length) {
  if (!differ(v.length, length)) return {};
  return problem(where, std::string(what) + " has length " + std::to_string(v.length.get()) +
                            ", expected " + std::to_string(length.get()));
}

std::string type_problem(std::string_view where, const char* what, const Vector& v, Type type) {
  if (v.type == type) return {};
  return problem(where, std::string(what) + " is " + type_name(v.type) + ", expected " +
                            type_name(type));
}

// The first non-empty problem.
template <class... Problems>
std::string first(Problems&&... problems) {
  std::string found;
  ((found.empty() ? void(found = std::forward<Problems>(problems)) : void()), ...);
  return found;
}



}  // namespace

std::string elementwise(Op op, Type type, std::span<const Vector> operands) {
  const vcode::OpInfo& info = vcode::info(op);
  const std::string_view where = info.spelling;
  if (info.family != vcode::Family::Elementwise)
    return problem(where, "not an elementwise operation");
  if (operands.size() != info.args.size()) return problem(where, "wrong number of operands");
  for (std::size_t i = 0; i < operands.size(); ++i) {
    std::string found = first(length_problem(where, "operand", operands[i], operands[0].length),
                              type_problem(where, "operand", operands[i],
                                           to_type(vcode::operand_type(op, to_keyword(type), i))));
    if (!found.empty()) return found;
  }
  return {};
}

std::string random(const Vector& bounds) {
  return type_problem("RAND", "operand", bounds, Type::Int);
}

std::string segmented(Op op, const Vector& v, const Segdes& sd) {
  const vcode::Family family = vcode::info(op).family;
  const std::string_view where = vcode::spelling(op);
  if (family != vcode::Family::Scan && family != vcode::Family::Reduce &&
      family != vcode::Family::Rank)
    return problem(where, "not a scan, reduction or rank");
  if (family == vcode::Family::Rank && v.type == Type::Bool)
    return problem(where, "is not defined on Bool");
  return length_problem(where, "vector", v, sd.total);
}

std::string permute(Op op, const PermuteOperands& o) {
  const std::string_view where = vcode::spelling(op);
  if (vcode::info(op).family != vcode::Family::Permute)
    return problem(where, "not a permute operation");
  const bool scatter =
      op == Op::Permute || op == Op::DPermute || op == Op::FPermute || op == Op::DFPermute;
  const bool flagged = op == Op::FPermute || op == Op::BFPermute || op == Op::DFPermute;
  const bool with_default = op == Op::DPermute || op == Op::DFPermute;
  std::string found = first(type_problem(where, "index vector", o.indices, Type::Int),
                            length_problem(where, "value vector", o.values, o.source_segdes.total));
  if (!found.empty()) return found;
  if (op == Op::Permute)
    return length_problem(where, "index vector", o.indices, o.source_segdes.total);
  if (differ(o.source_segdes.segments, o.dest_segdes.segments))
    return problem(where, "source and destination descriptors have different numbers of segments");
  if (with_default) {
    found = first(type_problem(where, "default vector", o.defaults, o.values.type),
                  length_problem(where, "default vector", o.defaults, o.dest_segdes.total));
    if (!found.empty()) return found;
  }
  // Scatters index through the source shape, gathers through the destination shape.
  const Length& indexed = scatter ? o.source_segdes.total : o.dest_segdes.total;
  found = length_problem(where, "index vector", o.indices, indexed);
  if (!found.empty() || !flagged) return found;
  return first(type_problem(where, "flag vector", o.flags, Type::Bool),
               length_problem(where, "flag vector", o.flags, indexed));
}

std::string extract(const Vector& v, const Vector& indices, const Segdes& sd) {
  return first(length_problem("EXTRACT", "vector", v, sd.total),
               type_problem("EXTRACT", "index vector", indices, Type::Int),
               length_problem("EXTRACT", "index vector", indices, sd.segments));
}

std::string replace(const Vector& v, const Vector& indices, const Vector& values,
                    const Segdes& sd) {
  return first(length_problem("REPLACE", "vector", v, sd.total),
               type_problem("REPLACE", "index vector", indices, Type::Int),
               length_problem("REPLACE", "index vector", indices, sd.segments),
               type_problem("REPLACE", "value vector", values, v.type),
               length_problem("REPLACE", "value vector", values, sd.segments));
}

std::string distribute(const Vector& values, const Segdes& sd) {
  return length_problem("DIST", "value vector", values, sd.segments);
}

std::string index(const Vector& starts, const Vector& strides, const Segdes& sd) {
  return first(type_problem("INDEX", "start vector", starts, Type::Int),
               type_problem("INDEX", "stride vector", strides, Type::Int),
               length_problem("INDEX", "start vector", starts, sd.segments),
               length_problem("INDEX", "stride vector", strides, sd.segments));
}

std::string pack(const Vector& v, const Vector& flags, const Segdes& sd) {
  return first(length_problem("PACK", "vector", v, sd.total),
               type_problem("PACK", "flag vector", flags, Type::Bool),
               length_problem("PACK", "flag vector", flags, sd.total));
}

std::string make_segdes(const Vector& lengths) {
  return type_problem("MAKE_SEGDES", "lengths vector", lengths, Type::Int);
}

std::string download(const Vector& v, std::size_t first, std::size_t count) {
  const std::size_t length = v.length.bound();
  if (first <= length && count <= length - first) return {};
  return problem("download", "elements " + std::to_string(first) + " + " +
                                 std::to_string(count) + " are outside a vector of length " +
                                 std::to_string(length));
}

std::string fused(const PreparedSuperOp& prepared, std::span<const FusedOperand> operands,
                  const Length& domain) {
  const vcode::SuperOp& op = prepared.definition;
  const std::string where = "FUSED " + std::to_string(op.id);
  if (op.nodes.empty() || operands.size() != op.operands.size())
    return problem(where, "operands do not match the definition");
  const std::vector<vcode::OperandUse>& uses = prepared.analysis.operands;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const FusedOperand& o = operands[k];
    if (op.operands[k] == vcode::TypeKeyword::Segdes) {
      if (uses[k].segdes && differ(o.segdes.total, domain))
        return problem(where, "a segment descriptor describes " +
                                  std::to_string(o.segdes.total.get()) + " elements, the domain has " +
                                  std::to_string(domain.get()));
      continue;
    }
    std::string found = type_problem(where, "an operand", o.vector, to_type(op.operands[k]));
    if (found.empty() && uses[k].elementwise)
      found = length_problem(where, "an operand", o.vector, domain);
    for (std::uint32_t s : uses[k].per_segment_of)
      if (found.empty() && s < operands.size())
        found = length_problem(where, "a per-segment operand", o.vector,
                               operands[s].segdes.segments);
    if (!found.empty()) return found;
  }
  return {};
}

void violated(const std::string& problem) {
  throw Violation("backend contract violated: " + problem);
}

}  // namespace cvl::contract
