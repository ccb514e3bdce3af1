// FUSED: a superoperator planned once, then evaluated over operands that obey its length rules
// (the interpreter checked them). The top layer of cvl-cpu below the backend object: it runs the
// families' loops, and computes the pending layer's expressions (as their Evaluator).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "families/families.hpp"

namespace cvl::cpu {

// fused.cpp. `outputs`: nodes of an elementwise definition also written out (fused_outputs).
// `first_held_nan`, where given for a definition whose root reduces: set as families.hpp's reduce
// sets it.
std::unique_ptr<PreparedSuperOp> prepare_fused(const Context& ctx, const vcode::SuperOp& op,
                                               std::vector<std::uint32_t> outputs = {});
Vector fused(const Context& ctx, const PreparedSuperOp& op, std::span<FusedOperand> operands,
             std::size_t domain, bool* first_held_nan = nullptr);
// An elementwise superoperator prepared with outputs, in one pass: the values of each output
// node, in order, then the root's.
std::vector<Vector> fused_outputs(const Context& ctx, const PreparedSuperOp& op,
                                  std::span<FusedOperand> operands, std::size_t domain);

// Reductions and scans of an elementwise superoperator's values (its root's, its outputs'), each
// over its own descriptor (a reduction's may be wide: storage.hpp's is_wide), in one pass that
// stores none of them (but where a scan's result holds them): each result is the bits fused()
// gives for that reduction or scan alone (the same fold over the same parts).
std::vector<Vector> fused_folds(const Context& ctx, const PreparedSuperOp& op,
                                std::span<FusedOperand> operands, std::size_t domain,
                                std::span<FoldOfValues> folds);

// The evaluator of pending expressions (pending/evaluator.hpp): the functions above, and a
// pending expression's values a block at a time. A backend's Context points at it.
const Evaluator& fused_evaluator();

// NESL's max_index and min_index in one pass (arg_reduce.cpp): a plan for a definition of
// vcode/superop_arg_reduce.hpp's shape (else null), and its evaluation (`op` one of those plans).
// `backend` runs the stages instead when a team of threads would pay.
std::unique_ptr<PreparedSuperOp> prepare_arg_reduce(const Context& ctx, Backend& backend,
                                                    const vcode::SuperOp& op);
Vector arg_reduce(const Context& ctx, Backend& backend, const PreparedSuperOp& op,
                  std::span<FusedOperand> operands, std::size_t domain);

// A FUSED call (FCODE) whose elementwise operands include pending gathers of short sources
// (pending/gather_composition.hpp): the same superoperator with each such $k read as GATHER of
// its source at its positions, planned once for each such rewriting; nothing when there is
// none. Consumes the operands then (through_gathers.cpp).
std::optional<Vector> fused_through_gathers(const Context& ctx, const PreparedSuperOp& op,
                                            std::span<FusedOperand> operands, std::size_t domain);

}  // namespace cvl::cpu
