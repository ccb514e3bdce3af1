#include "vcode/verify.hpp"

#include "vcode/superop_check.hpp"

namespace vcode {

std::vector<std::string> verify_program(const Program& program) {
  std::vector<std::string> problems;
  auto at = [&](std::size_t i) {
    return "instruction " + std::to_string(i) + " (line " +
           std::to_string(program.code[i].where.line) + "): ";
  };
  if (program.functions.empty()) problems.push_back("the program has no function");
  if (program.entry_function >= program.functions.size() && !program.functions.empty())
    problems.push_back("the entry function does not exist");

  for (std::uint32_t f = 0; f < program.functions.size(); ++f) {
    const Function& fn = program.functions[f];
    if (fn.first >= fn.end || fn.end > program.code.size()) {
      problems.push_back("function " + fn.name + " has an empty or out-of-range body");
      continue;
    }
    if (program.code[fn.end - 1].op != Op::Ret)
      problems.push_back("function " + fn.name + " does not end with RET");
    int open_ifs = 0;
    for (std::uint32_t i = fn.first; i < fn.end; ++i) {
      const Instruction& ins = program.code[i];
      if (ins.function != f) problems.push_back(at(i) + "belongs to the wrong function");
      if (ins.op == Op::Ret && i + 1 != fn.end) problems.push_back(at(i) + "RET before the end");
      if (ins.op == Op::If) ++open_ifs;
      if (ins.op == Op::EndIf && --open_ifs < 0) problems.push_back(at(i) + "unbalanced ENDIF");
      if ((ins.op == Op::If || ins.op == Op::Else) &&
          (ins.target <= i || ins.target > fn.end))
        problems.push_back(at(i) + "branch target outside its function");
      if (ins.op == Op::Call) {
        bool is_entry = false;
        for (const auto& g : program.functions) is_entry |= g.first == ins.target;
        if (!is_entry) problems.push_back(at(i) + "CALL target is not a function entry");
      }
      if (ins.op == Op::Const && ins.constant >= program.constants.size())
        problems.push_back(at(i) + "CONST refers to a missing constant");
      if (info(ins.op).syntax == Syntax::Type && !ins.type)
        problems.push_back(at(i) + "missing type keyword");
    }
    if (open_ifs != 0) problems.push_back("function " + fn.name + " has an IF without ENDIF");
  }
  // FCODE: every definition well formed, numbered by its position, every FUSED defined.
  std::vector<Diagnostic> superop_problems;
  for (const SuperOp& op : program.superops) check_superop(op, {}, superop_problems);
  check_superop_table(program, superop_problems);
  for (const Diagnostic& d : superop_problems)
    problems.push_back("line " + std::to_string(d.where.line) + ": " + d.message);
  return problems;
}

}  // namespace vcode
