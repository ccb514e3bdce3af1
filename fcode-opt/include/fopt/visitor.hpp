// A mutator base over the IR: one virtual per statement kind (from stmt_kinds.def), so a pass
// overrides only the kinds it cares about; the default descends into IF branches.
#pragma once

#include "fopt/ir.hpp"

namespace fopt {

class Mutator {
 public:
  virtual ~Mutator() = default;

  virtual void block(Block& b) {
    for (Stmt& s : b.stmts) stmt(s);
  }
  void stmt(Stmt& s) {
    switch (s.kind) {
#define X(kind, name, meaning) \
  case StmtKind::kind:         \
    visit_##kind(s);           \
    break;
#include "fopt/stmt_kinds.def"
#undef X
    }
  }

 protected:
#define X(kind, name, meaning) \
  virtual void visit_##kind(Stmt& s) { descend(s); }
#include "fopt/stmt_kinds.def"
#undef X
  void descend(Stmt& s) {
    for (Block& b : s.branches) block(b);
  }
};

}  // namespace fopt
