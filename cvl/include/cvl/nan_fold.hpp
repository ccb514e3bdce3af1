// Regrouping a fold of FLOAT MAX or MIN. Their order matters where a NaN is: max(s, NaN) is NaN
// but max(NaN, x) is x, so a NaN resets the running value and the element after it wins. A fold
// may still be cut into parts and continued: the fold so far continues from the fold of what came
// before (the state) by combining with the part's own fold, unless the part held a NaN, in which
// case the part's own fold is the fold so far. Every library that regroups such a fold (cvl-cuda's
// parallel scans and reductions, cvl-mpi's segments across processes, cvl-cpu's threads, which
// fold sequentially where a cut part holds a NaN) reads this rule here.
#pragma once

#include <type_traits>

#include "cvl/scalar_semantics.hpp"

namespace cvl {

// Whether a fold of Sem over T is reset by a NaN (FLOAT MAX and MIN).
template <class Sem, class T>
inline constexpr bool nan_resets_fold =
    std::is_floating_point_v<T> && requires { requires Sem::order_matters_with_nan; };

// The fold of a part continued from `state` (the fold of everything before it), given the fold
// of the part alone and whether the part held a NaN.
template <class Sem, class T>
CVL_HD T continue_fold(T state, T part, bool part_has_nan) {
  if constexpr (nan_resets_fold<Sem, T>)
    if (part_has_nan) return part;
  return Sem::apply(state, part);
}

}  // namespace cvl
