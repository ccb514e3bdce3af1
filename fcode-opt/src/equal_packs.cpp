#include "fopt/equal_packs.hpp"

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fopt/op_facts.hpp"

namespace fopt {
namespace {

using vcode::Op;
using vcode::TypeKeyword;

// What the rewrite needs to know of a definition, copied so that blocks can be rebuilt while
// it is consulted.
struct Definition {
  Op op;
  std::optional<TypeKeyword> type;
  std::vector<VarId> args;
};

using Definitions = std::unordered_map<VarId, Definition>;

void collect(const Block& block, Definitions& defs) {
  for_each_stmt(block, [&](const Stmt& s) {
    if (s.kind != StmtKind::Op || s.results.size() != 1) return;
    defs.emplace(s.results[0], Definition{s.op, s.type, s.args});
  });
}

const Definition* int_op(const Definitions& defs, VarId v, Op op, std::size_t arity) {
  auto it = defs.find(v);
  if (it == defs.end() || it->second.op != op || it->second.type != TypeKeyword::Int ||
      it->second.args.size() != arity)
    return nullptr;
  return &it->second;
}

// For `packed psd = PACK INT x (= INT x (DIST INT p sd)) sd` (either operand order of `=`): p.
std::optional<VarId> equal_to(const Stmt& pack, const Definitions& defs) {
  if (pack.kind != StmtKind::Op || pack.op != Op::Pack || pack.type != TypeKeyword::Int ||
      pack.args.size() != 3 || pack.results.size() != 2)
    return std::nullopt;
  const VarId x = pack.args[0], flags = pack.args[1], sd = pack.args[2];
  const Definition* equal = int_op(defs, flags, Op::Equal, 2);
  if (!equal) return std::nullopt;
  for (const auto& [mine, other] : {std::pair{equal->args[0], equal->args[1]},
                                    std::pair{equal->args[1], equal->args[0]}}) {
    if (mine != x) continue;
    const Definition* dist = int_op(defs, other, Op::Dist, 2);
    if (dist && dist->args[1] == sd) return dist->args[0];
  }
  return std::nullopt;
}

Stmt int_op_stmt(Op op, std::optional<TypeKeyword> type, std::vector<VarId> args, VarId result,
                 const vcode::SourceLocation& where) {
  Stmt s;
  s.kind = StmtKind::Op;
  s.op = op;
  s.type = type;
  s.args = std::move(args);
  s.results = {result};
  s.where = where;
  return s;
}

// The flags' count per segment, the descriptor it makes, and p over that descriptor. The PACK
// cannot fail where this applies: `=` has checked that x and the DIST over sd are as long.
void rewrite(Block& block, Module& module, const Definitions& defs) {
  std::vector<Stmt> kept;
  kept.reserve(block.stmts.size());
  for (Stmt& s : block.stmts) {
    for (Block& branch : s.branches) rewrite(branch, module, defs);
    const std::optional<VarId> p = equal_to(s, defs);
    if (!p) {
      kept.push_back(std::move(s));
      continue;
    }
    const VarId flags = s.args[1], sd = s.args[2];
    const VarId ones = module.new_var(VarType::Int), counts = module.new_var(VarType::Int);
    kept.push_back(int_op_stmt(Op::BoolToInt, std::nullopt, {flags}, ones, s.where));
    kept.push_back(int_op_stmt(Op::PlusReduce, TypeKeyword::Int, {ones, sd}, counts, s.where));
    kept.push_back(int_op_stmt(Op::MakeSegdes, std::nullopt, {counts}, s.results[1], s.where));
    kept.push_back(int_op_stmt(Op::Dist, TypeKeyword::Int, {*p, s.results[1]}, s.results[0],
                               s.where));
  }
  block.stmts = std::move(kept);
}

}  // namespace

void equal_packs(Module& module, const PassOptions&) {
  for (Function& f : module.functions) {
    if (!f.lifted) continue;
    Definitions defs;
    collect(f.body, defs);
    rewrite(f.body, module, defs);
  }
}

}  // namespace fopt
