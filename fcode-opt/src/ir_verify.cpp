#include "fopt/ir_verify.hpp"

#include <set>

namespace fopt {

namespace {

class Verifier {
 public:
  Verifier(const Module& module, const Function& f, std::vector<std::string>& problems)
      : module_(module), f_(f), problems_(problems) {}

  void run() {
    std::vector<VarId> scope;
    for (VarId p : f_.params) define(p, scope);
    block(f_.body, scope);
  }

 private:
  void problem(const std::string& text) {
    problems_.push_back("function " + f_.name + ": " + text);
  }

  void define(VarId v, std::vector<VarId>& scope) {
    if (v >= module_.var_types.size()) problem("v" + std::to_string(v) + " has no type entry");
    if (!defined_.insert(v).second) problem("v" + std::to_string(v) + " is defined twice");
    scope.push_back(v);
    visible_.insert(v);
  }

  void use(VarId v) {
    if (!visible_.contains(v))
      problem("v" + std::to_string(v) + " is used where it is not defined");
  }

  void block(const Block& b, std::vector<VarId>& scope) {
    const std::size_t mark = scope.size();
    for (const Stmt& s : b.stmts) {
      for (VarId v : s.args) use(v);
      if (s.kind == StmtKind::If) {
        if (s.branches.size() != 2) problem("IF without two branches");
        for (const Block& branch : s.branches) {
          std::vector<VarId> inner;
          block(branch, inner);
          if (!branch.diverges && branch.yields.size() != s.results.size())
            problem("IF branch yields " + std::to_string(branch.yields.size()) + " values for " +
                    std::to_string(s.results.size()) + " results");
        }
      }
      if (s.kind == StmtKind::Call) {
        if (const Function* callee = module_.find(s.callee); callee && callee->lifted) {
          if (callee->params.size() != s.args.size())
            problem("call of " + s.callee + " passes " + std::to_string(s.args.size()) + " of " +
                    std::to_string(callee->params.size()) + " parameters");
          if (!callee->body.diverges && callee->body.yields.size() != s.results.size())
            problem("call of " + s.callee + " binds " + std::to_string(s.results.size()) + " of " +
                    std::to_string(callee->body.yields.size()) + " results");
        }
      }
      if (s.kind == StmtKind::Fused) {
        if (s.superop >= module_.superops.size())
          problem("FUSED names a missing superoperator");
        else if (module_.superops[s.superop].operands.size() != s.args.size())
          problem("FUSED " + std::to_string(s.superop) + " has the wrong number of operands");
      }
      for (VarId v : s.results) define(v, scope);
    }
    if (!b.diverges)
      for (VarId v : b.yields) use(v);
    for (std::size_t i = mark; i < scope.size(); ++i) visible_.erase(scope[i]);
    scope.resize(mark);
  }

  const Module& module_;
  const Function& f_;
  std::vector<std::string>& problems_;
  std::set<VarId> defined_, visible_;
};

}  // namespace

std::vector<std::string> verify_module(const Module& module) {
  std::vector<std::string> problems;
  for (const Function& f : module.functions)
    if (f.lifted) Verifier(module, f, problems).run();
  return problems;
}

}  // namespace fopt
