// What cvl-cuda's vector and segment-descriptor handles hold: where the data lives (a host copy
// as a cvl-cpu vector, a device buffer, or both; vectors are immutable, so either is a cache of
// the other), and the device view of a descriptor that kernels read (SegMap).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cvl/backend.hpp"
#include "device.hpp"
#include "cvl/segment_view.hpp"
#include "platform.hpp"

namespace cvl::CVL_CUDA_NS {

struct VectorStorage final : Storage {
  VectorStorage(Type element_type, std::size_t element_count)
      : type(element_type), length(element_count) {}
  Type type;
  std::size_t length;
  cvl::Vector host;     // a cvl-cpu handle; its storage is null when there is no host copy
  DeviceBuffer device;  // allocated() when the data is on the device

  bool on_host() const { return host.storage != nullptr; }
  bool on_device() const { return device.allocated(); }
  std::size_t bytes() const { return length * element_size(type); }
};

// A descriptor as kernels see it (the view every evaluator shares): segment_of(j) takes the fast
// path for one segment and for uniform lengths and reads the cached per-element index otherwise.
using SegMap = cvl_sem::SegmentView;

struct SegdesStorage final : Storage {
  std::size_t segments = 0;
  std::size_t total = 0;
  cvl::Segdes host;          // cvl-cpu's descriptor, when built on the host
  cvl::Vector lengths;       // our INT handle of the lengths (LENGTHS returns it)
  DeviceBuffer offsets;      // int64, segments + 1, built on first device use
  DeviceBuffer index;        // uint32 per element, built lazily where segment_of needs it
  std::int64_t uniform = 0;  // > 0 when all lengths are known to be equal

  bool on_host() const { return host.storage != nullptr; }
  bool needs_index() const { return segments > 1 && uniform <= 0; }
};

}  // namespace cvl::CVL_CUDA_NS
