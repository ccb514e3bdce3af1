#include "vcode/superop_print.hpp"

#include <cmath>
#include <cstdio>

namespace vcode {
namespace {

using Kind = SuperOpNode::Kind;

// A REAL literal that reads back to the same double (17 significant digits, always with '.').
std::string float_literal(double value) {
  if (std::isinf(value)) return value > 0 ? "1.0e999" : "-1.0e999";
  char text[40];
  std::snprintf(text, sizeof text, "%.16e", value);
  return text;
}

void append(std::string& out, const SuperOp& op, std::uint32_t index) {
  if (index >= op.nodes.size()) {
    out += "?";
    return;
  }
  const SuperOpNode& n = op.nodes[index];
  switch (n.kind) {
    case Kind::Operand:
      out += '$';
      out += std::to_string(n.operand);
      return;
    case Kind::Constant:
      out += "(CONST ";
      out += keyword_name(n.type);
      out += ' ';
      if (n.type == TypeKeyword::Float) out += float_literal(n.float_value);
      else if (n.type == TypeKeyword::Bool) out += n.int_value ? "T" : "F";
      else out += std::to_string(n.int_value);
      out += ')';
      return;
    default:
      break;
  }
  out += '(';
  out += spelling(n.op);
  if (info(n.op).syntax == Syntax::Type) {
    out += ' ';
    out += keyword_name(n.type);
  }
  for (std::uint8_t a = 0; a < n.arity && a < 3; ++a) {
    out += ' ';
    if (n.args[a] >= index) out += "?";  // malformed: a child after its parent
    else append(out, op, n.args[a]);
  }
  out += ')';
}

}  // namespace

std::string superop_expression_text(const SuperOp& op, std::uint32_t node) {
  std::string out;
  append(out, op, node);
  return out;
}

std::string superop_text(const SuperOp& op) {
  std::string out = "SUPEROP " + std::to_string(op.id) + " (";
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    if (k) out += ' ';
    out += keyword_name(op.operands[k]);
  }
  out += ") ";
  if (op.nodes.empty()) out += "?";
  else append(out, op, static_cast<std::uint32_t>(op.nodes.size() - 1));
  return out;
}

}  // namespace vcode
