// The combiners of cvl-cpu's scans and reductions: the cvl_sem rule of a scan or reduce row of
// ops.def (apply and identity, cvl/scalar_semantics.hpp) as a type the fold templates take.
#pragma once

#include <type_traits>

#include "cvl/nan_fold.hpp"
#include "cvl/op_dispatch.hpp"

namespace cvl::cpu {

// Applied as apply(running, element) from the identity, left to right. Regrouped (as threads do)
// it gives the sequential result for INT and BOOL, for FLOAT MAX/MIN only without NaN
// (kNanSensitive), for FLOAT + and * only up to rounding (kRegroupingRounds).
template <class Sem, class T>
struct Combine {
  using value_type = T;
  using semantics = Sem;
  static constexpr T identity = Sem::identity(T{});
  static T apply(T s, T x) { return Sem::apply(s, x); }
};

template <class C>
inline constexpr bool kNanSensitive = nan_resets_fold<typename C::semantics, typename C::value_type>;
template <class C>
inline constexpr bool kRegroupingRounds =
    std::is_floating_point_v<typename C::value_type> &&
    (std::is_same_v<typename C::semantics, cvl_sem::Add> ||
     std::is_same_v<typename C::semantics, cvl_sem::Mul>);

// Calls f.template operator()<Combine<Sem, T>>() for the scan or reduce `op` on element type
// `type`; throws InternalError for a type the op does not take.
template <class F>
decltype(auto) with_combine(vcode::Op op, Type type, F&& f) {
  return visit_combiner(op, type, [&]<vcode::Op, class Sem, Type kType>() -> decltype(auto) {
    return f.template operator()<Combine<Sem, host_t<kType>>>();
  });
}

}  // namespace cvl::cpu
