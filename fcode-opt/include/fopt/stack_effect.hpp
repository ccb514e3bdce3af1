// Infers how many stack entries each VCODE function consumes and leaves (a fixpoint over the
// call graph, so recursive functions get their effect from their non-recursive paths).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fopt/code_tree.hpp"
#include "vcode/program.hpp"

namespace fopt {

struct StackEffect {
  int consumed = 0;
  int produced = 0;
  bool diverges = false;  // never returns (every path ends in EXIT)
  bool known = false;     // false: the effect could not be determined (see `why`)
  std::string why;
};

// Effects of the last definition of every function, by name.
std::map<std::string, StackEffect> infer_stack_effects(const vcode::Program& program);

// The effect of running `nodes` given the callees' effects: consumed entries below the start,
// the height change, divergence. Returns false (with `why`) when IF branches leave different
// heights or a callee's effect is unknown.
struct PathEffect {
  int need = 0;    // entries the code reads below its starting height
  int height = 0;  // height at the end, relative to the start
  bool diverges = false;
  bool depends_on_unknown = false;  // a callee's effect was not known yet
};
bool path_effect(const vcode::Program& program, const std::vector<CodeNode>& nodes,
                 const std::map<std::string, StackEffect>& callees, PathEffect& effect,
                 std::string& why);

}  // namespace fopt
