#include "fopt/ir_printer.hpp"

#include <string>

#include "vcode/superop_print.hpp"

namespace fopt {

namespace {

std::string vars(const std::vector<VarId>& list) {
  std::string text;
  for (VarId v : list) text += (text.empty() ? "v" : " v") + std::to_string(v);
  return text;
}

void print_block(std::ostream& out, const Block& block, int indent) {
  const std::string pad(indent, ' ');
  for (const Stmt& s : block.stmts) {
    out << pad;
    if (!s.results.empty()) out << vars(s.results) << " = ";
    switch (s.kind) {
      case StmtKind::Op:
        out << vcode::spelling(s.op);
        if (s.type) out << ' ' << vcode::keyword_name(*s.type);
        if (s.op == vcode::Op::Const) {
          const auto& c = s.constant;
          if (c.type == vcode::TypeKeyword::Float && !c.floats.empty())
            out << ' ' << c.floats[0];
          else if (!c.ints.empty())
            out << ' ' << c.ints[0];
          if (c.ints.size() + c.floats.size() > 1) out << " ...";
        }
        break;
      case StmtKind::Call:
        out << "CALL " << s.callee;
        break;
      case StmtKind::Fused:
        out << "FUSED " << s.superop;
        break;
      case StmtKind::If:
        out << "IF";
        break;
    }
    if (!s.args.empty()) out << ' ' << vars(s.args);
    out << '\n';
    for (std::size_t b = 0; b < s.branches.size(); ++b) {
      out << pad << (b == 0 ? "THEN\n" : "ELSE\n");
      print_block(out, s.branches[b], indent + 2);
    }
    if (s.kind == StmtKind::If) out << pad << "ENDIF\n";
  }
  if (block.diverges)
    out << pad << "(diverges)\n";
  else
    out << pad << "yield " << vars(block.yields) << '\n';
}

}  // namespace

void print_module(std::ostream& out, const Module& module) {
  for (const auto& op : module.superops) out << vcode::superop_text(op) << '\n';
  for (const Function& f : module.functions) {
    out << "FUNC " << f.name << " (" << vars(f.params) << ")";
    if (!f.lifted) {
      out << " not optimized: " << f.why_unoptimized << "\n\n";
      continue;
    }
    out << '\n';
    print_block(out, f.body, 2);
    out << '\n';
  }
}

}  // namespace fopt
