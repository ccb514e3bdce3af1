// Renames variable uses through a substitution map (following chains), for passes that replace
// one value by another.
#pragma once

#include <unordered_map>

#include "fopt/ir.hpp"

namespace fopt {

using Substitution = std::unordered_map<VarId, VarId>;

VarId resolve(const Substitution& map, VarId v);
void substitute(Block& block, const Substitution& map);

}  // namespace fopt
