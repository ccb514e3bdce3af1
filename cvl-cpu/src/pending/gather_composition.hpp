// Gathers and permutes of a pending gather of a short source, read through a composed index.
// If v is `source` gathered at `positions` (lazy_elementwise.hpp's ShortGather), then BPERMUTE
// or PERMUTE of v by an index is `source` gathered at the same op applied to `positions`.
// A program that moves a tuple of fields by one index (bh moves about 20 fields of its bodies
// and cells, per interaction, from level to level of its tree) then moves one INT vector of
// positions for them all, found again for each field by handle (a small cache), and no field is
// stored: elementwise ops read each from its short, cache-resident source. A DIST of a short
// vector is such a gather too (its values at each element's segment number, kept on the
// descriptor), and a DIST of a pending short gather is one at the DIST of its positions: bh's
// bodies, spread over the cells each meets, travel between levels as positions.
//
// The op on the positions checks the index exactly as it would on v (same index, same segment
// descriptors, same op), so an error is the instruction's own, word for word.
#pragma once

#include <optional>

#include "pending/context.hpp"
#include "pending/lazy_elementwise.hpp"

namespace cvl::cpu {

// The families' ops these compose with, given by their callers (permute.cpp, vector_ops.cpp): a
// permute of the positions, a DIST of them.
using PermuteFunction = Vector (*)(const Context& ctx, vcode::Op op, PermuteOperands&& operands);
using DistributeFunction = Vector (*)(const Context& ctx, Vector values, const SegmentView& sd,
                                      const Segdes& descriptor);

// BPERMUTE or PERMUTE (unflagged) of a pending gather of a short source, as a pending gather
// of that source at composed positions (`permute` moves them, once for all the fields moved by
// one index); nothing when the op runs as it is. Consumes the operands it uses.
std::optional<Vector> composed_gather(const Context& ctx, vcode::Op op, PermuteOperands& operands,
                                      PermuteFunction permute);

// A DIST of a pending gather of a short source, as a pending gather of that source at the
// positions spread by `distribute`; nothing when `values` is no such gather (then not consumed).
std::optional<Vector> distributed_gather(const Context& ctx, Vector& values, const SegmentView& sd,
                                        const Segdes& descriptor, DistributeFunction distribute);

}  // namespace cvl::cpu
