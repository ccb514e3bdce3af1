// Where a handle's data lives and how it moves, for the backend object: a vector
// has a host copy (a cvl-cpu vector), a device buffer, or both, each made from the other on first
// need and then kept (vectors are immutable). An operation runs on the host, through the embedded
// cvl-cpu backend, when all its inputs have host copies and are at most `threshold_` elements
// long; otherwise it asks here for device pointers, descriptor maps and output buffers (reusing a
// last-use operand when it can). Also the readers that fault messages use after a sync.
//
// Pending lengths (cvl/length.hpp): a device result whose count depends on data (PACK, MAKE_SEGDES
// of device lengths) gets a DeviceCount with a host bound. Buffers are sized by bounds; launches
// cover the bound on the host and the count on the device (extent()); a length without a bound
// is waited for (allocation_size()), the one wait besides reading data back.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <functional>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <unordered_set>
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
                                              : options.host_threshold) {
    if (threshold_ > 0) device_->set_riders([this] { return small_vectors_riding(); });
  }
  ~Residency() { device_->set_riders(nullptr); }
  Residency(const Residency&) = delete;
  Residency& operator=(const Residency&) = delete;

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
  bool small(const Length& length) const { return length.known() && small(length.get()); }
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
    const Type type = host.type;
    const std::size_t length = host.length;
    auto s = std::make_shared<VectorStorage>(type, length);
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
    return described_by_lengths(std::move(s));
  }
  // The descriptor `s`, recorded on its lengths vector as the one they describe.
  static Segdes described_by_lengths(std::shared_ptr<SegdesStorage> s) {
    storage(s->lengths).described = s;
    return Segdes{s->segments, s->total, std::move(s)};
  }
  // ---- pending counts ------------------------------------------------------------------

  // How many elements to allocate for `n`: its count or bound; a count with no bound is waited
  // for (a synchronization). Such a count may come from the program's data (MAKE_SEGDES of
  // device lengths), which the interpreter checks only once it is known: one past `longest` (the
  // longest vector, or more where the caller streams over it and stores nothing of its length)
  // is refused here, before anything of that length is allocated.
  static std::size_t allocation_size(const Length& n,
                                     std::uint64_t longest = kMaxVectorLength) {
    if (n.bound() != PendingCount::kUnbounded) return n.bound();
    const std::size_t count = n.get();
    if (count > longest) throw Error(vector_too_long_message(count));
    return count;
  }
  // Where the device has `n`'s count: the cell of a pending count, null for a known one.
  static std::int64_t* count_cell(const Length& n) {
    if (n.known()) return nullptr;
    const auto* count = dynamic_cast<const DeviceCount*>(n.pending().get());
    if (!count) throw InternalError("a pending length from another backend");
    return count->cell();
  }
  // A launch over `n` items, reading at most `limit` (the capacity of what it reads).
  static Extent extent(const Length& n, std::size_t limit = ~std::size_t{0}) {
    const std::size_t size = allocation_size(n);
    return Extent{size < limit ? size : limit, count_cell(n)};
  }
  // Whether each buffer holds every element a descriptor may address in it: `capacity` at least
  // the length's bound, or else (a wait) at least its count. False only where operands' lengths
  // disagree, which the interpreter reports after this operation; the caller then launches
  // nothing that could read or write out of bounds.
  bool holds(std::initializer_list<std::pair<std::size_t, const Length*>> needs) {
    bool waited = false;
    for (const auto& [room, length] : needs) {
      if (room >= length->bound()) continue;
      if (!waited) device_->synchronize();
      waited = true;
      if (room < length->get()) return false;
    }
    return true;
  }

  // A new pending count whose device work the caller queues next (it writes the cell).
  Length pending_count(std::size_t bound) { return Length(device_->new_count(bound)); }

  Vector new_device_vector(Type type, const Length& length) {
    const std::size_t capacity = allocation_size(length);
    // A descriptor's total may pass the longest vector (streamed over: longest_descriptor_total);
    // a vector of that length is refused where it would be stored.
    if (capacity > kMaxVectorLength) throw Error(vector_too_long_message(capacity));
    if (length.known()) device_->note_count(capacity);
    auto s = std::make_shared<VectorStorage>(type, capacity);
    s->device = DeviceBuffer(device_, capacity * element_size(type));
    return Vector{type, length, std::move(s)};
  }

  // ---- small device vectors come back at every synchronization -----------------------------
  // A device result of at most `threshold_` elements (per-segment counts, a descriptor's lengths,
  // an IF's boolean) gets its host copy at the next synchronization, in the same wait, so that
  // the small operations after it run on the host path: no launch, and no wait of their own.
  // A result is noted once the work writing it is queued (done()), never when it is allocated:
  // an operation may synchronize between the two (holds(), a full fault board), and a rider staged
  // then would bring back what the buffer held before its kernel, as the vector's host copy.
  struct SmallOnDevice {
    std::weak_ptr<VectorStorage> storage;
    Length length;
    std::uint64_t results;  // the storage's `results` when noted: a later reuse voids the note
  };
  void note_if_small(const Vector& v) {
    VectorStorage& s = storage(v);
    if (!small(s.capacity)) return;
    small_on_device_.push_back(
        {std::static_pointer_cast<VectorStorage>(v.storage), v.length, s.results});
    // Many small device operations without a synchronization: the notes stay as many as the
    // live small device vectors, at a constant cost per note.
    if (small_on_device_.size() >= 2 * notes_after_pruning_ + 64) prune_small_notes();
  }
  // Keeps the newest note of each vector still alive on the device only, and only while its
  // buffer holds the result it was noted for (a vector reused as a result is noted again, with its
  // new length, once that result's work is queued).
  void prune_small_notes() {
    std::unordered_set<const VectorStorage*> seen;
    std::vector<SmallOnDevice> kept;
    for (auto note = small_on_device_.rbegin(); note != small_on_device_.rend(); ++note) {
      const std::shared_ptr<VectorStorage> s = note->storage.lock();
      if (s && s->on_device() && !s->on_host() && s->results == note->results &&
          seen.insert(s.get()).second)
        kept.push_back(std::move(*note));
    }
    small_on_device_ = std::move(kept);
    notes_after_pruning_ = small_on_device_.size();
  }
  std::vector<Device::Rider> small_vectors_riding() {
    prune_small_notes();
    std::vector<Device::Rider> riders;
    for (SmallOnDevice& note : small_on_device_) {
      std::shared_ptr<VectorStorage> s = note.storage.lock();
      riders.push_back({s->device.get(), s->bytes(),
                        [this, s, length = note.length](const std::byte* data) {
                          if (s->on_host() || !length.known()) return;
                          const std::size_t count = length.get();
                          if (count > s->capacity) return;
                          s->host = cpu_->upload(s->type, data, count);
                        }});
    }
    small_on_device_.clear();
    notes_after_pruning_ = 0;
    return riders;
  }
  std::size_t notes_after_pruning_ = 0;
  std::vector<SmallOnDevice> small_on_device_;
  // The elements `v`'s buffer holds (a pending vector is computed first: its buffer is sized
  // then, and a pending length's bound may have become its count).
  std::size_t capacity(const Vector& v) {
    computed(v);
    return storage(v).capacity;
  }

  // ---- pending results (pending_expression.hpp) ----------------------------------------
  // Computes the elements of a pending vector through the FUSED path (of a reduction waiting in a
  // fold group, with the group's others); it is then an ordinary vector. Every read of a vector's
  // data goes through here first.
  virtual void compute_pending(VectorStorage& s) = 0;
  void computed(const Vector& v) {
    if (storage(v).waiting()) compute_pending(storage(v));
  }

  // The device copy, made (and kept) on first use.
  void* device_pointer(const Vector& v) {
    computed(v);
    VectorStorage& s = storage(v);
    if (!s.on_device()) {
      std::vector<std::byte> staging(s.bytes());
      cpu_->download(s.host, 0, s.capacity, staging.data());
      s.device = DeviceBuffer(device_, s.bytes());
      device_->copy_to_device(s.device.get(), staging.data(), s.bytes());
    }
    return s.device.get();
  }
  // The host copy, made (and kept) on first use: one synchronization (a pending length is read
  // in the same one when its bound holds the data; else first).
  const cvl::Vector& host_copy(const Vector& v) {
    computed(v);
    VectorStorage& s = storage(v);
    if (!s.on_host()) {
      const std::size_t size = element_size(s.type);
      std::vector<std::byte> staging(s.bytes());
      device_->copy_to_host(staging.data(), s.device.get(), s.bytes());
      const std::size_t count = v.length.get();  // resolved by that synchronization
      if (count > s.capacity) throw InternalError("a vector's count exceeds its capacity");
      staging.resize(count * size);
      s.host = cpu_->upload(s.type, staging.data(), count);
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
  // The descriptor's device view. Where an element's segment is asked for, the first operation
  // finds it by searching the offsets in its own kernel (what building the per-element index
  // would cost, without the launch: many descriptors are read once); a second builds the index
  // (once) and it is read from then on, unless an operation that visits every element wrote it
  // first (walked_map()). Counts that are pending appear as their bounds (handles.hpp:
  // SegmentView). A streamed operation (`streamed`) reads no per-element index and takes a
  // total past the longest vector.
  SegmentView device_map(const Segdes& sd, bool with_index = true, bool streamed = false) {
    SegdesStorage& s = segdes_mutable(sd);
    SegmentView map;
    map.segments = allocation_size(s.segments);
    map.total = allocation_size(s.total, streamed ? ~std::uint64_t{0} : kMaxVectorLength);
    // (Past the longest vector nothing but a streamed operation reads the elements: the others
    // refuse to store their results.)
    with_index = with_index && !streamed && map.total <= kMaxVectorLength;
    map.uniform = s.uniform;
    map.lengths = static_cast<const std::int32_t*>(device_pointer(s.lengths));
    if (!s.offsets.allocated()) {
      s.offsets = DeviceBuffer(device_, (map.segments + 1) * sizeof(std::int64_t));
      if (s.segments.known() && small(s.segments) && storage(s.lengths).on_host())
        upload_offsets(s);  // a copy, where a launch would only repeat the host's sum
      else
        library::offsets_from_lengths(*device_, map.lengths,
                                      extent(s.segments, capacity(s.lengths)),
                                      s.offsets.as<std::int64_t>(), nullptr, nullptr);
    }
    map.offsets = s.offsets.as<std::int64_t>();
    if (with_index && s.needs_index()) {
      if (!s.searched && !s.index.allocated()) {
        s.searched = true;  // the first use searches: map.index stays null
      } else {  // a later use, or an index a walk recorded
        if (!s.index.allocated()) {
          s.index = DeviceBuffer(device_, map.total * sizeof(std::uint32_t));
          library::segment_index(*device_, map.offsets, map.segments, map.total,
                                 s.index.as<std::uint32_t>());
        }
        map.index = s.index.as<std::uint32_t>();
      }
    }
    return map;
  }
  // The view of a descriptor whose elements one launch visits (`walk`), each looking up its
  // segment: where the per-element index is wanted and not built yet, and the walk covers every
  // element the descriptor has, the launch writes the index as it searches (`recording`), so no
  // launch of its own ever builds it. The caller keeps it (keep_recorded_index) once that launch
  // is queued.
  struct WalkedMap {
    SegmentView view;
    DeviceBuffer recording;  // the index the walk writes; unallocated when it writes none
    std::uint32_t* record() const { return recording.as<std::uint32_t>(); }
  };
  WalkedMap walked_map(const Segdes& sd, Extent walk) {
    SegdesStorage& s = segdes_mutable(sd);
    WalkedMap walked;
    if (!s.needs_index() || s.index.allocated()) {
      walked.view = device_map(sd);
      return walked;
    }
    walked.view = device_map(sd, false);
    if (walk.bound == walked.view.total && walk.count == count_cell(s.total) && walk.bound > 0)
      walked.recording = DeviceBuffer(device_, walked.view.total * sizeof(std::uint32_t));
    else
      walked.view = device_map(sd);  // searched, or the index built, as any other use
    return walked;
  }
  void keep_recorded_index(const Segdes& sd, WalkedMap& walked) {
    if (walked.recording.allocated()) segdes_mutable(sd).index = std::move(walked.recording);
  }
  // The offsets of a descriptor whose few lengths are on the host, summed there and copied.
  void upload_offsets(SegdesStorage& s) {
    const std::vector<std::int32_t> lengths = host_elements(s.lengths);
    std::vector<std::int64_t> offsets(lengths.size() + 1, 0);
    std::inclusive_scan(lengths.begin(), lengths.end(), offsets.begin() + 1, std::plus<>(),
                        std::int64_t{0});
    device_->copy_to_device(s.offsets.get(), offsets.data(), offsets.size() * sizeof(std::int64_t));
  }
  // The keys of a sort or reduce-by-key over sd's elements (handles.hpp).
  SegmentKey segment_keys(const Segdes& sd, const SegmentView& map) {
    return SegmentKey{map, count_cell(segdes(sd).total)};
  }

  // Whether `v`'s buffer may become the result on the device: no other handle, the right type,
  // room for `length`'s bound.
  static bool reusable(const Vector& v, Type type, const Length& length) {
    return v.storage && v.storage.use_count() == 1 && v.type == type &&
           storage(v).on_device() && allocation_size(length) <= storage(v).capacity;
  }
  // `v`'s buffer as the result, of length `length`.
  Vector take_for_output(Vector&& v, const Length& length) {
    VectorStorage& s = storage(v);
    s.host = {};  // the device data is about to change
    s.element_count.reset();
    ++s.results;
    return Vector{v.type, length, std::move(v.storage)};
  }
  Vector reuse_or_allocate(Vector&& v, Type type, const Length& length) {
    if (reusable(v, type, length)) return take_for_output(std::move(v), length);
    return new_device_vector(type, length);
  }
  Vector result_for(std::span<Vector> operands, Type type, const Length& length) {
    for (Vector& v : operands)
      if (reusable(v, type, length)) return take_for_output(std::move(v), length);
    return new_device_vector(type, length);
  }
  // An unshared device copy of `v` (itself when already unshared): for ops writing into it.
  Vector unshared(Vector&& v) {
    const void* from = device_pointer(v);
    const Length length = v.length;
    if (reusable(v, v.type, length)) return take_for_output(std::move(v), length);
    Vector copy = new_device_vector(v.type, length);
    device_->copy_on_device(device_pointer(copy), from,
                            std::min(storage(v).bytes(), storage(copy).bytes()));
    return copy;
  }

  // A result whose device work is queued: small, it rides back at the next synchronization.
  Vector done(Vector v) {
    if (v.storage && storage(v).on_device() && !storage(v).on_host()) note_if_small(v);
    if (device_->sync_each_op()) device_->synchronize();
    return v;
  }

  // ---- fault messages (run after a synchronization) ------------------------------------

  template <class T>
  T read_element(const Vector& v, std::uint64_t position) {
    computed(v);  // an operand a kernel made in place (an INDEX's indices) is stored first
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
    std::vector<std::int32_t> out(lengths.length.get());
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

  // The elements of an INT vector that has a host copy.
  std::vector<std::int32_t> host_elements(const Vector& v) {
    std::vector<std::int32_t> values(v.length.get());
    cpu_->download(storage(v).host, 0, values.size(), values.data());
    return values;
  }
  std::int64_t uniform_length(const Vector& lengths) {
    const std::vector<std::int32_t> values = host_elements(lengths);
    if (values.empty()) return 0;
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
