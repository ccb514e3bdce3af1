#include "fopt/code_tree.hpp"

#include <stdexcept>

namespace fopt {

namespace {

using vcode::Op;

// Reads nodes from `i` until ELSE, ENDIF or RET (left in `i`).
std::vector<CodeNode> read_part(const vcode::Program& program, const vcode::Function& f,
                                std::uint32_t& i) {
  std::vector<CodeNode> nodes;
  while (i < f.end) {
    const Op op = program.code[i].op;
    if (op == Op::Else || op == Op::EndIf || op == Op::Ret) return nodes;
    CodeNode node;
    node.instruction = i++;
    if (op == Op::If) {
      node.is_if = true;
      node.then_part = read_part(program, f, i);
      if (i < f.end && program.code[i].op == Op::Else) {
        ++i;
        node.else_part = read_part(program, f, i);
      }
      if (i >= f.end || program.code[i].op != Op::EndIf)
        throw std::runtime_error("function " + f.name + ": IF without ENDIF");
      ++i;
    }
    nodes.push_back(std::move(node));
  }
  throw std::runtime_error("function " + f.name + ": no RET");
}

}  // namespace

std::vector<CodeNode> code_tree(const vcode::Program& program, const vcode::Function& f) {
  std::uint32_t i = f.first;
  if (i < f.end && program.code[i].op == Op::Func) ++i;
  auto nodes = read_part(program, f, i);
  if (program.code[i].op != Op::Ret)
    throw std::runtime_error("function " + f.name + ": ELSE or ENDIF without IF");
  return nodes;
}

}  // namespace fopt
