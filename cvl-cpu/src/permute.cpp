// The permute family (spec/CVL.md §3.5, VCODE.md §6.7): scatters (PERMUTE, FPERMUTE, DPERMUTE,
// DFPERMUTE) walk the source segments, gathers (BPERMUTE, BFPERMUTE) the destination segments.
// Only bits move, so each loop is instantiated per element width, not per type. Every index
// that is used is checked against the length of the segment it addresses.
//
// Collisions (two sources writing one position, invalid in NESL programs but possible in
// hand-written VCODE): the highest source index wins, as in the reference (spec/CVL.md §3.5).
// Sequentially that is the loop's order; with several threads a first pass claims each target
// for its highest source (an atomic max), and the second writes only the winners.
#include <algorithm>
#include <atomic>
#include <string>

#include "families.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;
using I32 = std::int32_t;
using Flag = std::uint8_t;

// Calls visit(j, target) for each (flagged) source element j of segment k, target being
// dest.start(k) + idx[j], each thread over its share of the sources; the first bad index is
// recorded in `fault` and ends that thread's share.
template <bool kFlagged, class Visit>
void for_each_target(const Parallel& par, const SegView& source, const SegView& dest,
                     const I32* idx, const Flag* flags, IndexFault& fault, Visit&& visit) {
  for_each_part(par, source, kMemoryBoundThreshold, [&](const Part& p, std::size_t) {
    IndexFault local;
    for_each_piece(source, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      if (local.found()) return;
      const std::size_t start = dest.start(k);
      auto length = static_cast<std::uint32_t>(dest.length(k));
      for (std::size_t j = lo; j < hi; ++j) {
        if constexpr (kFlagged)
          if (!flags[j]) continue;
        auto at = static_cast<std::uint32_t>(idx[j]);  // negative indices become huge
        if (at >= length) {
          local = {j, idx[j], length};
          return;
        }
        visit(j, start + at);
      }
    });
    fault.merge(local);
  });
}

// out[dest.start(k) + idx[j]] = values[j] for each (flagged) source element j of segment k.
template <class Bits, bool kFlagged>
void scatter(const Parallel& par, Op op, const SegView& source, const SegView& dest,
             const Bits* values, const I32* idx, const Flag* flags, Bits* out) {
  IndexFault fault;
  if (par.team_for(source.total, kMemoryBoundThreshold) <= 1) {
    // By value: a pointer captured by reference is reloaded after every store through it.
    for_each_target<kFlagged>(par, source, dest, idx, flags, fault,
                              [out, values](std::size_t j, std::size_t target) {
                                out[target] = values[j];
                              });
  } else {
    // Claims are source positions plus one; zero: not written. Scratch, not the heap: a large
    // heap block would stay in the heap (vinterp never trims it) as resident memory.
    Scratch<std::uint32_t> claim_memory(dest.total);
    std::uint32_t* claims = claim_memory.data();
    parallel_for(par, dest.total, kMemoryBoundThreshold, [&](std::size_t lo, std::size_t hi) {
      std::fill(claims + lo, claims + hi, std::uint32_t{0});
    });
    for_each_target<kFlagged>(par, source, dest, idx, flags, fault,
                              [&](std::size_t j, std::size_t target) {
                                std::atomic_ref<std::uint32_t> claim(claims[target]);
                                auto mine = static_cast<std::uint32_t>(j + 1);
                                std::uint32_t seen = claim.load(std::memory_order_relaxed);
                                while (seen < mine &&
                                       !claim.compare_exchange_weak(seen, mine,
                                                                    std::memory_order_relaxed)) {
                                }
                              });
    if (!fault.found())
      for_each_target<kFlagged>(par, source, dest, idx, flags, fault,
                                [claims, out, values](std::size_t j, std::size_t target) {
                                  if (claims[target] == j + 1) out[target] = values[j];
                                });
  }
  if (fault.found()) throw_index_fault(op, fault);
}

// out[j] = segment[idx[j]] for j in [lo, hi), unflagged positions zero bits; returns the first j
// whose index is outside [0, length), or hi. A function of its own, so that no pointer is
// reloaded after each store, as one captured by reference would be.
template <class Bits, bool kFlagged>
std::size_t gather_run(const Bits* segment, std::uint32_t length, const I32* idx,
                       const Flag* flags, Bits* out, std::size_t lo, std::size_t hi) {
  for (std::size_t j = lo; j < hi; ++j) {
    if constexpr (kFlagged) {
      if (!flags[j]) {
        out[j] = 0;
        continue;
      }
    }
    auto at = static_cast<std::uint32_t>(idx[j]);
    if (at >= length) return j;
    out[j] = segment[at];  // out may be idx's memory: idx[j] is read first
  }
  return hi;
}

// out[j] = values[source.start(k) + idx[j]] for each destination element j of segment k;
// unflagged positions get zero bits (0, 0.0, F) and their index is not looked at.
template <class Bits, bool kFlagged>
void gather(const Parallel& par, Op op, const SegView& source, const SegView& dest,
            const Bits* values, const I32* idx, const Flag* flags, Bits* out) {
  IndexFault fault;
  for_each_part(par, dest, kMemoryBoundThreshold, [&](const Part& p, std::size_t) {
    IndexFault local;
    for_each_piece(dest, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      if (local.found()) return;
      const std::size_t bad = gather_run<Bits, kFlagged>(values + source.start(k),
                                                        static_cast<std::uint32_t>(source.length(k)),
                                                        idx, flags, out, lo, hi);
      if (bad < hi) local = {bad, idx[bad], static_cast<std::int64_t>(source.length(k))};
    });
    fault.merge(local);
  });
  if (fault.found()) throw_index_fault(op, fault);
}

}  // namespace

[[noreturn]] void throw_index_fault(Op op, const IndexFault& fault) {
  throw Error(index_fault_message(vcode::spelling(op), fault.index, fault.position, fault.length));
}

Vector permute(const Context& ctx, Op op, PermuteOperands&& operands) {
  const Parallel& par = ctx.par;
  const SegView source = view(operands.source_segdes);
  const SegView dest = op == Op::Permute ? source : view(operands.dest_segdes);
  const Type type = operands.values.type;
  const I32* idx = elements<I32>(operands.indices);
  const Flag* flags = elements<Flag>(operands.flags);
  return with_element_bits(type, [&]<class Bits>() -> Vector {
    const Bits* values = elements<Bits>(operands.values);
    // The ops.def row says which way the indices point and which operands there are.
    const bool flagged = vcode::permute_has_flags(op);
    auto run = [&](Bits* out) {
      if (vcode::info(op).shape == vcode::Shape::Gather) {
        if (flagged)
          gather<Bits, true>(par, op, source, dest, values, idx, flags, out);
        else
          gather<Bits, false>(par, op, source, dest, values, idx, flags, out);
      } else if (flagged) {
        scatter<Bits, true>(par, op, source, dest, values, idx, flags, out);
      } else {
        scatter<Bits, false>(par, op, source, dest, values, idx, flags, out);
      }
    };
    Vector out;
    if (vcode::info(op).shape == vcode::Shape::Gather)
      out = reuse_or_allocate(std::move(operands.indices), type, dest.total);
    else if (vcode::permute_has_defaults(op))  // the default's memory, at its last use
      out = unshared(par, std::move(operands.defaults));
    else if (flagged)  // unwritten positions are 0
      out = allocate_zeroed(par, type, dest.total);
    else
      out = allocate(type, dest.total);
    run(elements<Bits>(out));
    return out;
  });
}

}  // namespace cvl::cpu
