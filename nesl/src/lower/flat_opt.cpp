#include "nesl/flat_opt.hpp"

#include <vector>

namespace nesl {
namespace {

using flat::Block;
using flat::Statement;
using flat::Value;

// Whether a statement only computes its outputs: it prints, draws and fails nothing, so when
// nothing reads them it can go.
bool pure(const Statement& s) {
  return s.kind == Statement::Kind::Const || (s.kind == Statement::Kind::Op && s.op == vcode::Op::Lengths);
}

// Drops the pure statements of `block` (its arms' too) whose outputs nothing after them reads;
// `read` holds what is read later and gains what the kept statements read (values are assigned
// once, so one set serves every arm).
void drop_dead(Block& block, std::vector<bool>& read) {
  for (std::size_t i = block.size(); i-- > 0;) {
    Statement& s = block[i];
    bool used = false;
    for (Value v : s.outputs) used = used || read[v];
    if (!used && pure(s)) {
      block.erase(block.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (s.kind == Statement::Kind::If) {
      for (Value v : s.then_results) read[v] = true;
      for (Value v : s.else_results) read[v] = true;
      drop_dead(s.then_block, read);
      drop_dead(s.else_block, read);
    }
    for (Value v : s.inputs) read[v] = true;
  }
}

}  // namespace

flat::Program optimize_flat(flat::Program program) {
  program = share_common_values(std::move(program));
  for (flat::Function& f : program.functions) {
    std::vector<bool> read(f.leaves.size(), false);
    for (Value v : f.results) read[v] = true;
    drop_dead(f.body, read);
  }
  return program;
}

}  // namespace nesl
