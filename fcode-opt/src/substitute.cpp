#include "fopt/substitute.hpp"

namespace fopt {

VarId resolve(const Substitution& map, VarId v) {
  for (auto it = map.find(v); it != map.end(); it = map.find(v)) v = it->second;
  return v;
}

void substitute(Block& block, const Substitution& map) {
  if (map.empty()) return;
  for (Stmt& s : block.stmts) {
    for (VarId& v : s.args) v = resolve(map, v);
    for (Block& b : s.branches) substitute(b, map);
  }
  for (VarId& v : block.yields) v = resolve(map, v);
}

}  // namespace fopt
