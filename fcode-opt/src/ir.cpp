#include "fopt/ir.hpp"

namespace fopt {

std::string_view kind_name(StmtKind kind) {
  switch (kind) {
#define X(k, name, meaning) \
  case StmtKind::k:         \
    return name;
#include "fopt/stmt_kinds.def"
#undef X
  }
  return "?";
}

Function* Module::find(const std::string& name) {
  for (Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const Function* Module::find(const std::string& name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

VarType var_type_of(vcode::TypeKeyword keyword) {
  switch (keyword) {
    case vcode::TypeKeyword::Int:
      return VarType::Int;
    case vcode::TypeKeyword::Bool:
      return VarType::Bool;
    case vcode::TypeKeyword::Float:
      return VarType::Float;
    case vcode::TypeKeyword::Segdes:
      return VarType::Segdes;
    case vcode::TypeKeyword::Char:
      return VarType::Char;
  }
  return VarType::Unknown;
}

std::optional<vcode::TypeKeyword> keyword_of(VarType type) {
  switch (type) {
    case VarType::Int:
      return vcode::TypeKeyword::Int;
    case VarType::Bool:
      return vcode::TypeKeyword::Bool;
    case VarType::Float:
      return vcode::TypeKeyword::Float;
    case VarType::Segdes:
      return vcode::TypeKeyword::Segdes;
    case VarType::Char:
      return vcode::TypeKeyword::Char;
    case VarType::Unknown:
      break;
  }
  return std::nullopt;
}

std::set<std::string> functions_with_fixed_signature(const Module& module) {
  std::set<std::string> fixed{module.entry};
  for (const Function& f : module.functions)
    if (!f.lifted)
      for (std::uint32_t i = f.original_first; i < f.original_end; ++i)
        if (module.original.code[i].op == vcode::Op::Call)
          fixed.insert(module.original.code[i].callee);
  return fixed;
}

std::size_t stmt_count(const Block& block) {
  std::size_t n = 0;
  for_each_stmt(block, [&](const Stmt&) { ++n; });
  return n;
}

void count_uses(const Block& block, std::unordered_map<VarId, std::size_t>& uses) {
  for (const Stmt& s : block.stmts) {
    for (VarId v : s.args) ++uses[v];
    for (const Block& b : s.branches) count_uses(b, uses);
  }
  for (VarId v : block.yields) ++uses[v];
}

}  // namespace fopt
