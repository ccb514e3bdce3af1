#include "vcode/printer.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

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

void print_constant(std::ostream& out, const Constant& c) {
  if (c.stream_name) {
    out << ' ' << *c.stream_name;
    return;
  }
  if (c.type == TypeKeyword::Char) {
    out << " \"";
    for (std::int32_t code : c.ints) out << static_cast<char>(code);
    out << '"';
    return;
  }
  std::size_t n = c.type == TypeKeyword::Float ? c.floats.size() : c.ints.size();
  auto element = [&](std::size_t i) {
    switch (c.type) {
      case TypeKeyword::Float: return real_literal(c.floats[i]);
      case TypeKeyword::Bool: return std::string(c.ints[i] ? "T" : "F");
      default: return std::to_string(c.ints[i]);
    }
  };
  if (!c.vector_form && n == 1) {
    out << ' ' << element(0);
    return;
  }
  out << " (";
  for (std::size_t i = 0; i < n; ++i) out << (i ? " " : "") << element(i);
  out << ')';
}

}  // namespace

void print_program(std::ostream& out, const Program& program) {
  for (const SuperOp& op : program.superops) out << superop_text(op) << '\n';
  if (!program.superops.empty()) out << '\n';
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const Function& fn = program.functions[f];
    if (f) out << '\n';
    out << "FUNC " << fn.name << '\n';
    for (std::uint32_t i = fn.first; i < fn.end; ++i) {
      const Instruction& ins = program.code[i];
      out << spelling(ins.op);
      switch (info(ins.op).syntax) {
        case Syntax::None: break;
        case Syntax::Type: out << ' ' << keyword_name(*ins.type); break;
        case Syntax::Counts: out << ' ' << ins.count << ' ' << ins.depth; break;
        case Syntax::Integer: out << ' ' << ins.count; break;
        case Syntax::Name: out << ' ' << ins.callee; break;
        case Syntax::Const:
          out << ' ' << keyword_name(*ins.type);
          print_constant(out, program.constants[ins.constant]);
          break;
      }
      out << '\n';
    }
  }
}

std::string constant_text(const Constant& constant) {
  std::ostringstream out;
  out << keyword_name(constant.type);
  print_constant(out, constant);
  return out.str();
}

std::string print_program(const Program& program) {
  std::ostringstream out;
  print_program(out, program);
  return out.str();
}

}  // namespace vcode
