#include "vcode/program.hpp"

#include <algorithm>

namespace vcode {

std::optional<std::uint32_t> Program::find_function(const std::string& name) const {
  for (std::size_t f = functions.size(); f-- > 0;)
    if (functions[f].name == name) return static_cast<std::uint32_t>(f);
  return std::nullopt;
}

bool Program::same_code(const Program& other) const {
  auto same_function = [](const Function& a, const Function& b) {
    return a.name == b.name && a.first == b.first && a.end == b.end;
  };
  auto same_instruction = [](const Instruction& a, const Instruction& b) {
    return a.op == b.op && a.type == b.type && a.count == b.count && a.depth == b.depth &&
           a.callee == b.callee && a.target == b.target && a.constant == b.constant &&
           a.function == b.function;
  };
  return entry_function == other.entry_function && constants == other.constants &&
         superops == other.superops &&
         std::equal(functions.begin(), functions.end(), other.functions.begin(),
                    other.functions.end(), same_function) &&
         std::equal(code.begin(), code.end(), other.code.begin(), other.code.end(),
                    same_instruction);
}

std::string instruction_text(const Program& program, const Instruction& ins) {
  std::string text(spelling(ins.op));
  switch (info(ins.op).syntax) {
    case Syntax::None: break;
    case Syntax::Type:
    case Syntax::Const:
      if (ins.type) {
        text += ' ';
        text += keyword_name(*ins.type);
      }
      break;
    case Syntax::Counts:
      text += ' ';
      text += std::to_string(ins.count);
      text += ' ';
      text += std::to_string(ins.depth);
      break;
    case Syntax::Name: text += " " + ins.callee; break;
    case Syntax::Integer: text += " " + std::to_string(ins.count); break;
  }
  if (ins.op == Op::Const && ins.constant < program.constants.size()) {
    const Constant& c = program.constants[ins.constant];
    std::size_t n = c.type == TypeKeyword::Float ? c.floats.size() : c.ints.size();
    if (c.vector_form || n != 1) text += " (" + std::to_string(n) + " elements)";
  }
  return text;
}

}  // namespace vcode
