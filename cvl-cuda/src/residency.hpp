// Where a handle's data lives and how it moves (issue 3 §5), for the backend object: a vector
// has a host copy (a cvl-cpu vector), a device buffer, or both, each made from the other on first
// need and then kept (vectors are immutable). An operation runs on the host, through the embedded
// cvl-cpu backend, when all its inputs have host copies and are at most `threshold_` elements
// long; otherwise it asks here for device pointers, descriptor maps and output buffers (reusing a
// last-use operand when it can). Also the readers that fault messages use after a sync.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cvl_cpu/cvl_cpu.hpp"
#include "device.hpp"
#include "handles.hpp"
#include "library.hpp"
#include "tuning.hpp"

namespace cvl::CVL_CUDA_NS {

class Residency {
 protected:
  explicit Residency(const BackendOptions& options)
      : device_(std::make_shared<Device>(options)),
        cpu_(make_cpu_backend(BackendOptions{1, options.float_rank})),
        threshold_(options.host_threshold < 0 ? cuda_tuning::kDefaultHostThreshold
                                              : options.host_threshold) {}

  static VectorStorage& storage(const Vector& v) {
    if (!v.storage) throw InternalError("vector handle without storage");
    return *static_cast<VectorStorage*>(v.storage.get());
  }
  const SegdesStorage& segdes(const Segdes& sd) {
    if (!sd.storage) return *empty_segdes();
    return *static_cast<const SegdesStorage*>(sd.storage.get());
  }
  SegdesStorage& segdes_mutable(const Segdes& sd) { return const_cast<SegdesStorage&>(segdes(sd)); }
  const std::shared_ptr<SegdesStorage>& empty_segdes() {
    if (!empty_) {
      empty_ = std::make_shared<SegdesStorage>();
      empty_->host = cpu_->make_segdes(cpu_->upload(Type::Int, nullptr, 0));
      empty_->lengths = wrap_host(cpu_->upload(Type::Int, nullptr, 0));
    }
    return empty_;
  }

  bool small(std::size_t length) const {
    return threshold_ > 0 && length <= static_cast<std::size_t>(threshold_);
  }
  bool on_host_path(std::span<const Vector* const> vectors,
                    std::initializer_list<const Segdes*> descriptors = {}) {
    if (threshold_ <= 0) return false;
    for (const Vector* v : vectors)
      if (!small(v->length) || !storage(*v).on_host()) return false;
    for (const Segdes* sd : descriptors) {
      const SegdesStorage& s = segdes(*sd);
      if (!small(s.total) || !small(s.segments) || !storage(s.lengths).on_host()) return false;
    }
    return true;
  }
  bool on_host_path(std::initializer_list<const Vector*> vectors,
                    std::initializer_list<const Segdes*> descriptors) {
    return on_host_path(std::span<const Vector* const>(vectors.begin(), vectors.size()),
                        descriptors);
  }
  bool on_host_path(const std::vector<const Vector*>& vectors,
                    std::initializer_list<const Segdes*> descriptors) {
    return on_host_path(std::span<const Vector* const>(vectors.data(), vectors.size()),
                        descriptors);
  }
  bool on_host_path(std::span<Vector> vectors) {
    std::vector<const Vector*> list;
    for (const Vector& v : vectors) list.push_back(&v);
    return on_host_path(list, {});
  }

  Vector wrap_host(cvl::Vector host) {
    auto s = std::make_shared<VectorStorage>(host.type, host.length);
    const Type type = host.type;
    const std::size_t length = host.length;
    s->host = std::move(host);
    return Vector{type, length, std::move(s)};
  }
  Segdes wrap_host_segdes(cvl::Segdes host) {
    auto s = std::make_shared<SegdesStorage>();
    s->segments = host.segments;
    s->total = host.total;
    s->lengths = wrap_host(cpu_->segment_lengths(host));
    s->host = std::move(host);
    s->uniform = uniform_length(s->lengths);
    return Segdes{s->segments, s->total, s};
  }
  Vector new_device_vector(Type type, std::size_t length) {
    auto s = std::make_shared<VectorStorage>(type, length);
    s->device = DeviceBuffer(device_, length * element_size(type));
    return Vector{type, length, std::move(s)};
  }

  // The device copy, made (and kept) on first use.
  void* device_pointer(const Vector& v) {
    VectorStorage& s = storage(v);
    if (!s.on_device()) {
      std::vector<std::byte> staging(s.bytes());
      cpu_->download(s.host, 0, s.length, staging.data());
      s.device = DeviceBuffer(device_, s.bytes());
      device_->copy_to_device(s.device.get(), staging.data(), s.bytes());
    }
    return s.device.get();
  }
  // The host copy, made (and kept) on first use: one synchronization.
  const cvl::Vector& host_copy(const Vector& v) {
    VectorStorage& s = storage(v);
    if (!s.on_host()) {
      std::vector<std::byte> staging(s.bytes());
      device_->copy_to_host(staging.data(), s.device.get(), s.bytes());
      s.host = cpu_->upload(s.type, staging.data(), s.length);
    }
    return s.host;
  }
  // The host copy for cvl-cpu; moved out of a last-use handle so cvl-cpu may reuse it.
  cvl::Vector take_host(Vector&& v) {
    host_copy(v);
    if (v.storage.use_count() == 1) return std::move(storage(v).host);
    return storage(v).host;
  }
  const cvl::Segdes& host_segdes(const Segdes& sd) {
    SegdesStorage& s = segdes_mutable(sd);
    if (!s.on_host()) s.host = cpu_->make_segdes(host_copy(s.lengths));
    return s.host;
  }
  // The descriptor's device view; the per-element index is built (once) when asked for.
  SegMap device_map(const Segdes& sd, bool with_index = true) {
    SegdesStorage& s = segdes_mutable(sd);
    SegMap map;
    map.segments = s.segments;
    map.total = s.total;
    map.uniform = s.uniform;
    map.lengths = static_cast<const std::int32_t*>(device_pointer(s.lengths));
    if (!s.offsets.allocated()) {
      s.offsets = DeviceBuffer(device_, (s.segments + 1) * sizeof(std::int64_t));
      library::offsets_from_lengths(*device_, map.lengths, s.segments,
                                    s.offsets.as<std::int64_t>());
    }
    map.offsets = s.offsets.as<std::int64_t>();
    if (with_index && s.needs_index()) {
      if (!s.index.allocated()) {
        s.index = DeviceBuffer(device_, s.total * sizeof(std::uint32_t));
        library::segment_index(*device_, map.offsets, s.segments, s.total,
                               s.index.as<std::uint32_t>());
      }
      map.index = s.index.as<std::uint32_t>();
    }
    return map;
  }

  // Whether `v` may become the result on the device: no other handle, same shape.
  static bool reusable(const Vector& v, Type type, std::size_t length) {
    return v.storage && v.storage.use_count() == 1 && v.type == type && v.length == length &&
           storage(v).on_device();
  }
  Vector take_for_output(Vector&& v) {
    storage(v).host = {};  // the device data is about to change
    return std::move(v);
  }
  Vector reuse_or_allocate(Vector&& v, Type type, std::size_t length) {
    if (reusable(v, type, length)) return take_for_output(std::move(v));
    return new_device_vector(type, length);
  }
  Vector result_for(std::span<Vector> operands, Type type, std::size_t length) {
    for (Vector& v : operands)
      if (reusable(v, type, length)) return take_for_output(std::move(v));
    return new_device_vector(type, length);
  }
  // An unshared device copy of `v` (itself when already unshared): for ops writing into it.
  Vector unshared(Vector&& v) {
    const void* from = device_pointer(v);
    if (reusable(v, v.type, v.length)) return take_for_output(std::move(v));
    Vector copy = new_device_vector(v.type, v.length);
    device_->copy_on_device(device_pointer(copy), from, storage(v).bytes());
    return copy;
  }

  Vector done(Vector v) {
    if (device_->sync_each_op()) device_->synchronize();
    return v;
  }

  // ---- fault messages (run after a synchronization) ------------------------------------

  template <class T>
  T read_element(const Vector& v, std::uint64_t position) {
    VectorStorage& s = storage(v);
    T value{};
    if (s.on_host())
      cpu_->download(s.host, position, 1, &value);
    else
      device_->read_unchecked(&value, static_cast<const T*>(s.device.get()) + position, sizeof(T));
    return value;
  }
  std::vector<std::int32_t> all_lengths(const Segdes& sd) {
    const Vector& lengths = segdes(sd).lengths;
    std::vector<std::int32_t> out(lengths.length);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = read_element<std::int32_t>(lengths, k);
    return out;
  }
  std::size_t segment_containing(const Segdes& sd, std::uint64_t position) {
    std::uint64_t end = 0;
    const auto lengths = all_lengths(sd);
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      end += static_cast<std::uint64_t>(lengths[k]);
      if (position < end) return k;
    }
    return lengths.size();
  }
  std::uint32_t segment_length(const Segdes& sd, std::size_t k) {
    return static_cast<std::uint32_t>(read_element<std::int32_t>(segdes(sd).lengths, k));
  }

  std::int64_t uniform_length(const Vector& lengths) {
    const std::size_t m = lengths.length;
    if (m == 0) return 0;
    std::vector<std::int32_t> values(m);
    cpu_->download(storage(lengths).host, 0, m, values.data());
    for (std::int32_t x : values)
      if (x != values[0]) return 0;
    return values[0];
  }

  std::shared_ptr<Device> device_;
  std::unique_ptr<Backend> cpu_;  // the host path: cvl-cpu, one thread
  long long threshold_;
  std::shared_ptr<SegdesStorage> empty_;
};

}  // namespace cvl::CVL_CUDA_NS
