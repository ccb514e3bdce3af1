// What cvl-cuda's vector and segment-descriptor handles hold: where the data lives (a host copy
// as a cvl-cpu vector, a device buffer, or both; vectors are immutable, so either is a cache of
// the other), and the device view of a descriptor that kernels read (SegmentView).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "cvl/backend.hpp"
#include "device.hpp"
#include "cvl/segment_view.hpp"
#include "pending_expression.hpp"
#include "platform.hpp"

namespace cvl::CVL_CUDA_NS {

struct SegdesStorage;

// The data of a vector handle. `capacity` elements fit its buffers: the vector's length, or,
// while that is pending on the device, the length's bound; the host copy (made after a
// synchronization) holds exactly the vector's elements.
struct VectorStorage final : Storage {
  VectorStorage(Type element_type, std::size_t element_capacity)
      : type(element_type), capacity(element_capacity) {}
  Type type;
  std::size_t capacity;
  cvl::Vector host;     // a cvl-cpu handle; its storage is null when there is no host copy
  DeviceBuffer device;  // allocated() when the data is on the device
  // The live descriptor whose lengths these are: MAKE_SEGDES of them again (flattened code takes
  // LENGTHS and remakes the descriptor) returns it, offsets, total and index already made.
  std::weak_ptr<SegdesStorage> described;
  // How many times the device buffer was taken over as a later operation's result.
  std::uint64_t results = 0;
  // A one-element INT vector whose element is a count the device computes (LENGTH of a pending
  // length, +_REDUCE of a descriptor's lengths whose total is pending): that count, so that
  // MAKE_SEGDES of the vector is one segment of that length, made with no launch.
  std::optional<Length> element_count;
  // The expression of a result not computed yet (pending_expression.hpp): no host copy and no
  // device buffer until it is.
  std::unique_ptr<PendingExpression> pending;
  // A reduction's result that waits in a fold group (fold_group.hpp), its reduction `fold`: no
  // buffer either until the group is computed.
  std::shared_ptr<FoldGroup> fold_group;
  std::size_t fold = 0;

  bool on_host() const { return host.storage != nullptr; }
  bool on_device() const { return device.allocated(); }
  bool waiting() const { return pending || fold_group; }
  std::size_t bytes() const { return capacity * element_size(type); }
};

// A descriptor as kernels see it: cvl_sem::SegmentView, the view every evaluator shares, whose
// segment_of(j) takes the fast path for one segment and for uniform lengths and reads the cached
// per-element index otherwise. Where the descriptor's counts are pending, `segments` and `total`
// are their bounds, and the offsets past the last real segment all equal the real total, so that
// searches and segment lengths stay right for every real element and read nothing out of bounds.
using cvl_sem::SegmentView;

struct SegdesStorage final : Storage {
  Length segments;
  Length total;
  cvl::Segdes host;          // cvl-cpu's descriptor, when built on the host
  cvl::Vector lengths;       // our INT handle of the lengths (LENGTHS returns it)
  DeviceBuffer offsets;      // int64, segments' bound + 1, built on first device use
  DeviceBuffer index;        // uint32 per element of total's bound, built where segment_of needs it
  std::int64_t uniform = 0;  // > 0 when all lengths are known to be equal
  bool searched = false;     // a device operation has found its elements' segments by search
  // Its total as a one-element INT vector, where the work that counts it writes that too (PACK):
  // +_REDUCE of the lengths returns it while the total is pending, with no launch of its own.
  cvl::Vector total_value;

  bool on_host() const { return host.storage != nullptr; }
  bool needs_index() const { return segments.bound() > 1 && uniform <= 0; }
};

// The segment of element j as a sort or reduce-by-key key: the real segment for j below the
// descriptor's count of elements (`total`: its cell where pending, else null), and one past the
// last possible segment for the elements past it, which a launch sized by bounds also visits.
struct SegmentKey {
  SegmentView sd;
  const std::int64_t* total = nullptr;
  CVL_HD std::uint32_t operator()(std::size_t j) const {
    if (total && j >= static_cast<std::size_t>(*total)) return static_cast<std::uint32_t>(sd.segments);
    return static_cast<std::uint32_t>(sd.segment_of(j));
  }
};

}  // namespace cvl::CVL_CUDA_NS
