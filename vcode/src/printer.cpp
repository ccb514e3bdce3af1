#include "vcode/printer.hpp"

#include <cmath>
#include <cstdio>

#include "vcode/superop_print.hpp"

namespace vcode {

namespace {

// A REAL literal that reads back to the same double (it must contain a '.').
std::string real_literal(double value) {
  if (std::isinf(value)) return value > 0 ? "1.0e999" : "-1.0e999";
  char text[40];
  std::snprintf(text, sizeof text, "%.17e", value);
  return text;
}

// The text is built by appending to one string: a program has tens of thousands of lines.
void append_constant(std::string& out, const Constant& c) {
  if (c.stream_name) {
    out += ' ';
    out += *c.stream_name;
    return;
  }
  if (c.type == TypeKeyword::Char) {
    out += " \"";
    for (std::int32_t code : c.ints) out += static_cast<char>(code);
    out += '"';
    return;
  }
  std::size_t n = c.type == TypeKeyword::Float ? c.floats.size() : c.ints.size();
  auto element = [&](std::size_t i) {
    switch (c.type) {
      case TypeKeyword::Float: out += real_literal(c.floats[i]); break;
      case TypeKeyword::Bool: out += c.ints[i] ? 'T' : 'F'; break;
      default: out += std::to_string(c.ints[i]);
    }
  };
  if (!c.vector_form && n == 1) {
    out += ' ';
    element(0);
    return;
  }
  out += " (";
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    element(i);
  }
  out += ')';
}

}  // namespace

std::string constant_text(const Constant& constant) {
  std::string out(keyword_name(constant.type));
  append_constant(out, constant);
  return out;
}

std::string print_program(const Program& program) {
  std::string out;
  for (const SuperOp& op : program.superops) {
    out += superop_text(op);
    out += '\n';
  }
  if (!program.superops.empty()) out += '\n';
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const Function& fn = program.functions[f];
    if (f) out += '\n';
    out += "FUNC ";
    out += fn.name;
    out += '\n';
    for (std::uint32_t i = fn.first; i < fn.end; ++i) {
      const Instruction& ins = program.code[i];
      out += spelling(ins.op);
      switch (info(ins.op).syntax) {
        case Syntax::None: break;
        case Syntax::Type:
          out += ' ';
          out += keyword_name(*ins.type);
          break;
        case Syntax::Counts:
          out += ' ';
          out += std::to_string(ins.count);
          out += ' ';
          out += std::to_string(ins.depth);
          break;
        case Syntax::Integer:
          out += ' ';
          out += std::to_string(ins.count);
          break;
        case Syntax::Name:
          out += ' ';
          out += ins.callee;
          break;
        case Syntax::Const:
          out += ' ';
          out += keyword_name(*ins.type);
          append_constant(out, program.constants[ins.constant]);
          break;
      }
      out += '\n';
    }
  }
  return out;
}

void print_program(std::ostream& out, const Program& program) { out << print_program(program); }

}  // namespace vcode
