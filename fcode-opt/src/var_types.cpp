#include "fopt/var_types.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fopt/op_facts.hpp"

namespace fopt {

namespace {

// A variable's type while the analysis runs: no definition seen yet, one type on every path
// seen so far, or Unknown (paths disagree, or a definition we cannot see).
struct Lattice {
  bool reached = false;
  VarType type = VarType::Unknown;

  // Joins `other` in; true if this changed.
  bool join(const Lattice& other) {
    if (!other.reached) return false;
    if (!reached) {
      *this = other;
      return true;
    }
    if (type == other.type || type == VarType::Unknown) return false;
    type = VarType::Unknown;
    return true;
  }
};

constexpr Lattice kUnknown{true, VarType::Unknown};

class TypeInference {
 public:
  explicit TypeInference(Module& module)
      : module_(module),
        types_(module.var_types.size()),
        derived_(module.var_types.size(), false) {}

  void run() {
    const std::set<std::string> fixed = functions_with_fixed_signature(module_);
    // Operations define their results' types; lift and the passes set those when they bind them.
    for (const Function& f : module_.functions) {
      if (!f.lifted) continue;
      for (VarId p : f.params) {
        derived_[p] = true;
        if (fixed.contains(f.name)) types_[p] = kUnknown;  // an unoptimized caller passes anything
      }
      for_each_stmt(f.body, [&](const Stmt& s) {
        if (s.kind == StmtKind::Op || s.kind == StmtKind::Fused)
          for (VarId r : s.results) types_[r] = {true, module_.var_types[r]};
      });
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const Function& f : module_.functions)
        if (f.lifted)
          for_each_stmt(f.body, [&](const Stmt& s) { changed |= propagate(s); });
    }
    for (VarId v = 0; v < types_.size(); ++v)
      if (derived_[v]) module_.var_types[v] = types_[v].type;
  }

 private:
  // Joins what statement `s` passes to the variables it binds without an operation: its IF
  // results, its call results, the callee's parameters.
  bool propagate(const Stmt& s) {
    bool changed = false;
    if (s.kind == StmtKind::If) {
      for (std::size_t i = 0; i < s.results.size(); ++i)
        for (const Block& b : s.branches)
          if (!b.diverges) changed |= bind(s.results[i], types_[b.yields[i]]);
      return changed;
    }
    if (s.kind != StmtKind::Call) return false;
    const Function* callee = module_.find(s.callee);
    if (!callee || !callee->lifted) {
      for (VarId r : s.results) changed |= bind(r, kUnknown);
      return changed;
    }
    for (std::size_t i = 0; i < s.args.size() && i < callee->params.size(); ++i)
      changed |= bind(callee->params[i], types_[s.args[i]]);
    for (std::size_t i = 0; i < s.results.size(); ++i)
      changed |= bind(s.results[i],
                      i < callee->body.yields.size() ? types_[callee->body.yields[i]] : kUnknown);
    return changed;
  }

  bool bind(VarId v, const Lattice& from) {
    derived_[v] = true;
    return types_[v].join(from);
  }

  Module& module_;
  std::vector<Lattice> types_;
  std::vector<bool> derived_;  // IF results, call results, parameters: typed here
};

}  // namespace

// A parameter no call reaches (an uncalled function) ends up Unknown.
void infer_var_types(Module& module) { TypeInference(module).run(); }

bool operands_well_typed(const Stmt& s, const Module& module) {
  if (s.kind != StmtKind::Op) return false;
  const std::string_view letters = vcode::info(s.op).args;
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    const VarType actual = module.var_types[s.args[i]];
    const char letter = i < letters.size() ? letters[i] : 'X';
    if (letter == 'X') continue;  // any stack value
    if (letter == 'V') {          // any vector, not a segment descriptor
      if (actual == VarType::Unknown || actual == VarType::Segdes) return false;
      continue;
    }
    const VarType required = operand_type(s, i);
    if (required == VarType::Unknown || actual != required) return false;
  }
  return true;
}

}  // namespace fopt
