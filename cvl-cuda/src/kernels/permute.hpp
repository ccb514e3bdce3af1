// Kernel bodies of the permute family: scatters walk the source elements (twice, in one phased
// launch: claims, then writes), gathers the destination elements. The operands read at each walked
// element (the indices, a scatter's values) may be pending INDEX or DIST results made in place
// (kernels::ElementOperand). Every index used is checked against the length of the segment it
// addresses (a bad one records the first faulting position and writes nothing). The walk over a descriptor's elements writes that descriptor's per-element
// index as it finds their segments, where it is asked to (`record_index`, null: not asked).
#pragma once

#include "handles.hpp"
#include "kernels/element_operand.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

// Scatters run in two passes, so that where several source elements target one position the
// highest source position wins (spec/CVL.md §3.5) on a GPU too: ClaimScatter raises each
// target's claim to its source position plus one (claims start at zero), then Scatter writes only
// the winners.
struct ClaimScatter {
  ElementOperand indices;
  const std::uint8_t* flags;  // null: every element
  SegmentView source, dest;
  std::uint32_t* claims;
  unsigned long long* fault;
  std::uint32_t* record_index = nullptr;  // source's

  CVL_HD void operator()(std::size_t j) const {
    if (flags && !flags[j] && !record_index) return;
    const std::size_t k = source.segment_of(j);
    if (record_index) {
      record_index[j] = static_cast<std::uint32_t>(k);
      if (flags && !flags[j]) return;
    }
    if (k >= dest.segments) return;  // descriptors that disagree: the interpreter reports it
    // Negative indices become huge.
    const auto at = static_cast<std::uint32_t>(indices.at<std::int32_t>(j));
    if (at >= dest.length(k)) {
      record_fault(fault, j);
      return;
    }
    raise_claim(claims + dest.start(k) + at, static_cast<std::uint32_t>(j + 1));
  }
};

// out[dest.start(k) + idx[j]] = values[j] for each (flagged) element j of source segment k that
// holds the claim on its target.
template <class Bits>
struct Scatter {
  ElementOperand values;
  ElementOperand indices;
  const std::uint8_t* flags;
  SegmentView source, dest;
  const std::uint32_t* claims;
  Bits* out;

  CVL_HD void operator()(std::size_t j) const {
    if (flags && !flags[j]) return;
    const std::size_t k = source.segment_of(j);
    if (k >= dest.segments) return;
    const auto at = static_cast<std::uint32_t>(indices.at<std::int32_t>(j));
    if (at >= dest.length(k)) return;  // recorded by ClaimScatter
    const std::size_t target = dest.start(k) + at;
    if (claims[target] == static_cast<std::uint32_t>(j + 1))
      out[target] = values.template at<Bits>(j);
  }
};

// A scatter as one phased launch (Device::launch_phases): every claim is in before any write.
template <class Bits>
struct ClaimThenScatter {
  static constexpr int kPhases = 2;
  ClaimScatter claim;
  Scatter<Bits> write;
  CVL_HD void operator()(int phase, std::size_t j) const {
    if (phase == 0)
      claim(j);
    else
      write(j);
  }
};

// out[j] = values[source.start(k) + idx[j]] for each element j of destination segment k;
// unflagged positions get zero bits and their index is not looked at.
template <class Bits>
struct Gather {
  const Bits* values;
  ElementOperand indices;
  const std::uint8_t* flags;
  SegmentView source, dest;
  Bits* out;
  unsigned long long* fault;
  std::uint32_t* record_index = nullptr;  // dest's

  CVL_HD void operator()(std::size_t j) const {
    const bool taken = !flags || flags[j];
    if (!taken && !record_index) {
      out[j] = 0;
      return;
    }
    const std::size_t k = dest.segment_of(j);
    if (record_index) record_index[j] = static_cast<std::uint32_t>(k);
    if (!taken) {
      out[j] = 0;
      return;
    }
    // Read before out[j] (may alias).
    const auto at = static_cast<std::uint32_t>(indices.at<std::int32_t>(j));
    if (k >= source.segments) return;  // descriptors that disagree: the interpreter reports it
    if (at >= source.length(k)) {
      record_fault(fault, j);
      return;
    }
    out[j] = values[source.start(k) + at];
  }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
