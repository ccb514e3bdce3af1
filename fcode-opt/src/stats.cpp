#include "fopt/stats.hpp"

#include <map>

namespace fopt {

CodeCounts count_code(const vcode::Program& program) {
  CodeCounts counts;
  for (const auto& ins : program.code) {
    ++counts.instructions;
    if (ins.op == vcode::Op::Copy || ins.op == vcode::Op::Pop || ins.op == vcode::Op::CPop)
      ++counts.stack_moves;
    if (ins.op == vcode::Op::Fused) ++counts.fused;
  }
  return counts;
}

void print_stats(std::ostream& out, const vcode::Program& before, const vcode::Program& after,
                 const Module& module) {
  const CodeCounts b = count_code(before), a = count_code(after);
  out << "fcode-opt stats for " << before.file << '\n';
  out << "  functions:            " << before.functions.size() << " -> " << after.functions.size()
      << '\n';
  out << "  static instructions:  " << b.instructions << " -> " << a.instructions << '\n';
  out << "  stack moves:          " << b.stack_moves << " -> " << a.stack_moves << '\n';
  std::map<std::uint32_t, std::size_t> uses;
  for (const auto& ins : after.code)
    if (ins.op == vcode::Op::Fused) ++uses[static_cast<std::uint32_t>(ins.count)];
  out << "  superoperators:       " << after.superops.size() << " (FUSED instructions: " << a.fused
      << ")\n";
  for (const auto& op : after.superops)
    out << "    SUPEROP " << op.id << ": " << op.nodes.size() << " nodes, " << op.operands.size()
        << " operands, " << uses[op.id] << " uses" << (op.reduces() ? ", reduces" : "") << '\n';
  std::size_t unoptimized = 0;
  for (const Function& f : module.functions)
    if (!f.lifted) {
      if (unoptimized++ == 0) out << "  left unoptimized:\n";
      out << "    " << f.name << ": " << f.why_unoptimized << '\n';
    }
  if (unoptimized == 0) out << "  left unoptimized:     none\n";
}

}  // namespace fopt
