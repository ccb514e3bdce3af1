// Pass "nest-reductions": NESL's max_index and min_index reduce a vector to its segments'
// extreme, then fold the positions equal to it: two passes over the vector, the second reading
// the first's result. Where the second is a superoperator of vcode/superop_arg_reduce.hpp's shape
// once the reduction is written inside it (a nested reduction, vcode/superop.hpp), and the
// reduction cannot fail and has no other use, this moves it there: a backend that knows the shape
// finds both in one pass, the others run the two stages as before.
#pragma once

#include "fopt/pass.hpp"

namespace fopt {

void nest_reductions(Module& module, const PassOptions& options);

}  // namespace fopt
