// A superoperator run the way its unfused VCODE would run: node by node with a backend's own
// elementwise, DIST, INDEX, scan and reduce operations. The oracle FUSED is tested against, and
// the baseline it is timed against.
#pragma once

#include <cstddef>
#include <span>

#include "cvl/backend.hpp"
#include "vcode/superop.hpp"

namespace cvl {

// Constants become full vectors (one element per segment under DIST or INDEX). Each intermediate
// is moved into its last use, so the backend may reuse its memory; `operands` stay untouched.
// A constant at element level needs the domain's count (a wait, where it is pending).
Vector run_unfused(Backend& backend, const vcode::SuperOp& op,
                   std::span<const FusedOperand> operands, const Length& domain);

}  // namespace cvl
