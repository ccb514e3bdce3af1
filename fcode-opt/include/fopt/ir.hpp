// The let-form IR of fcode-opt: functions of statements binding single-assignment variables,
// with structured IF/ELSE, lifted from stack code and lowered back to it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "vcode/program.hpp"
#include "vcode/superop.hpp"

namespace fopt {

using VarId = std::uint32_t;

enum class StmtKind : std::uint8_t {
#define X(kind, name, meaning) kind,
#include "fopt/stmt_kinds.def"
#undef X
};

std::string_view kind_name(StmtKind kind);

struct Stmt;

// A straight-line list of statements. `yields` are the values the block leaves: a function's
// return values, or an IF branch's values for the IF's results. A diverging block ends in EXIT
// (or a call that never returns); it yields nothing.
struct Block {
  std::vector<Stmt> stmts;
  std::vector<VarId> yields;
  bool diverges = false;
};

struct Stmt {
  StmtKind kind = StmtKind::Op;
  vcode::Op op = vcode::Op::Const;         // Op
  std::optional<vcode::TypeKeyword> type;  // Op: the type keyword
  vcode::Constant constant;                // Op CONST: the value
  std::string callee;                      // Call: function name
  std::uint32_t superop = 0;               // Fused: index into Module::superops
  bool may_fail = true;                    // Fused: its root can fail (an INT division)
  std::vector<VarId> args;                 // deepest stack operand first (If: the condition)
  std::vector<VarId> results;              // pushed in order
  std::vector<Block> branches;             // If: then, else
  vcode::SourceLocation where;
};

// Element type of a variable, as far as it is known.
enum class VarType : std::uint8_t { Unknown, Int, Bool, Float, Segdes, Char };

struct Function {
  std::string name;
  std::vector<VarId> params;  // deepest first
  Block body;                 // body.yields: the return values, deepest first
  // Functions the optimizer could not lift keep their original code (indices into
  // Module::original.code) and are emitted unchanged.
  bool lifted = true;
  std::uint32_t original_first = 0, original_end = 0;
  std::string why_unoptimized;
};

struct Module {
  vcode::Program original;          // the input program
  std::vector<Function> functions;  // output order; the entry function first if it was
  std::string entry;                // name of the entry function (MAIN or the first)
  std::vector<VarType> var_types;   // indexed by VarId
  std::vector<vcode::SuperOp> superops;

  VarId new_var(VarType type = VarType::Unknown) {
    var_types.push_back(type);
    return static_cast<VarId>(var_types.size() - 1);
  }
  Function* find(const std::string& name);
  const Function* find(const std::string& name) const;
};

VarType var_type_of(vcode::TypeKeyword keyword);
std::optional<vcode::TypeKeyword> keyword_of(VarType type);

// The entry function and every function an unoptimized function calls: their parameters are
// what the original stack code passes, so they can neither change nor be typed from the calls.
std::set<std::string> functions_with_fixed_signature(const Module& module);

// Calls `visit(stmt)` on every statement of `block`, nested branches after their IF.
template <class Visit>
void for_each_stmt(Block& block, Visit&& visit) {
  for (Stmt& stmt : block.stmts) {
    visit(stmt);
    for (Block& branch : stmt.branches) for_each_stmt(branch, visit);
  }
}
template <class Visit>
void for_each_stmt(const Block& block, Visit&& visit) {
  for (const Stmt& stmt : block.stmts) {
    visit(stmt);
    for (const Block& branch : stmt.branches) for_each_stmt(branch, visit);
  }
}

// Number of statements of a block, branches included (IF counts one).
std::size_t stmt_count(const Block& block);

// Adds to `uses` the reads of each variable in `block` (operands, IF conditions, yields), nested
// blocks included.
void count_uses(const Block& block, std::unordered_map<VarId, std::size_t>& uses);

}  // namespace fopt
