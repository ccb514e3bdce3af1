// Memory behind cvl-cpu's handles: element buffers (small ones inside the handle object),
// segment descriptors (lengths plus start offsets), and typed access to both. The memory comes
// from buffer_cache.hpp, which also counts it against --max-memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>

#include "memory/buffer_cache.hpp"
#include "memory/pending_elements.hpp"
#include "cvl/types.hpp"
#include "threads/parallel.hpp"

namespace cvl::cpu {

// A vector of one value per segment, described instead of written (a DIST over segments long
// enough to pay): element i of segment k is element k of `values`.
struct SegmentValues {
  Vector values;
  Segdes segments;
};

// Raw memory of at least `bytes` bytes, 64-byte aligned. Buffers of up to 64 bytes (scalars are
// most vectors a program makes) live inside the object, 16-byte aligned, so one allocation makes
// the whole handle; larger ones come from the buffer cache (and count against --max-memory).
class Buffer final : public Storage {
 public:
  explicit Buffer(std::size_t bytes);
  // No memory yet: `count` elements of `type` that a deferred fill writes (defer_fill, which this
  // calls; the caller records the values). The memory is acquired, and charged to the budget
  // current now, only when something first takes their address: a vector of one value that is
  // only ever read as that value holds no memory (small ones live inside the object at once).
  Buffer(Type type, std::size_t count);
  // No memory yet: the elements are `pending`'s, computed into memory the buffer then takes
  // over when something first takes their address (pending_elements.hpp).
  explicit Buffer(std::unique_ptr<PendingElements> pending);
  ~Buffer() override;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // The memory, with any deferred elements written first (elements() reads it through this).
  std::byte* bytes() const {
    if (lazy_pending_.load(std::memory_order_acquire)) compute_lazy();
    if (deferred_.load(std::memory_order_acquire)) write_deferred();
    return data_;
  }
  // The pending elements of a buffer whose elements are not computed yet, for an op that builds a
  // larger expression on them: it then owns them, and the buffer is left without elements (it
  // must be dropped). nullptr when computed, or made otherwise.
  std::unique_ptr<PendingElements> take_expression();
  // Takes over `result`'s elements as this pending buffer's, and drops its pending elements: a
  // result computed in one pass with another that shares its operands
  // (pending/shared_pending.cpp).
  void complete(Vector result) const;
  // What a buffer whose elements are not computed yet computes them from, else nullptr.
  const PendingElements* pending() const {
    return lazy_pending_.load(std::memory_order_acquire) ? expression_.get() : nullptr;
  }
  std::size_t capacity() const { return capacity_; }

  // What the elements are known to be, recorded by the op that wrote them and dropped in one
  // place, forget_values(), when the buffer is about to be overwritten (reusable()).
  //
  // The bits every element has, when the op that made them made them all alike (a DIST over one
  // segment, an elementwise op of such vectors): later elementwise ops compute on one element.
  std::optional<std::uint64_t> uniform() const { return uniform_; }
  void set_uniform(std::uint64_t bits) { uniform_ = bits; }
  // The values per segment, when a DIST made them so (SegmentValues): elementwise ops read them
  // once per segment; a deferred fill writes them out (defer_fill).
  const std::shared_ptr<const SegmentValues>& segment_values() const { return segment_values_; }
  void set_segment_values(std::shared_ptr<const SegmentValues> values) {
    segment_values_ = std::move(values);
  }
  // Every element, read as an unsigned index, is below this: a BPERMUTE over one segment
  // checked them, so another by the same index may leave its result pending (lazy_gather) with
  // no check of its own.
  std::optional<std::uint32_t> indices_below() const { return indices_below_; }
  void set_indices_below(std::uint32_t bound) { indices_below_ = bound; }

  // The descriptor whose segment lengths the elements are, when LENGTHS made them (a deferred
  // fill writes them out: lengths_vector): MAKE_SEGDES of them is that descriptor again, and
  // sums and scans of them by segment are differences of its offsets (flattened code takes a
  // nested value's descriptor apart at each FLATTEN and nested GET).
  const std::optional<Segdes>& lengths_of() const { return lengths_of_; }
  void set_lengths_of(Segdes descriptor) { lengths_of_ = std::move(descriptor); }

  // The largest element's count before it wrapped, when the elements are sums of a wide
  // descriptor's lengths past an INT (INT sums wrap): a segment of that many elements, which
  // MAKE_SEGDES refuses in those words rather than as a negative length.
  std::optional<std::uint64_t> wrapped_count() const { return wrapped_count_; }
  void set_wrapped_count(std::uint64_t count) { wrapped_count_ = count; }

  // Forgets what the elements were known to be: they are about to be overwritten.
  void forget_values() {
    lengths_of_.reset();
    uniform_.reset();
    segment_values_.reset();
    indices_below_.reset();
    wrapped_count_.reset();
    version_ = new_version();
  }
  // Tells these elements from what the buffer held before it was reused (forget_values): what
  // was computed from them may be found again by handle and version (gather_composition.hpp).
  std::uint64_t version() const { return version_; }

  // Leaves the first `count` elements (of type `type`) unwritten until something takes their
  // address: then they are all written `uniform`, or their `segment_values`. An op that only
  // needs the value (an elementwise op, computing on one element) never writes them; NESL's
  // constants mostly live and die so.
  void defer_fill(std::size_t count, Type type);
  // Forgets a deferred fill: the elements are about to be overwritten, or never read again.
  // A buffer without memory keeps its fill: it costs nothing unless read, and is never
  // overwritten (reusable).
  void cancel_deferred() {
    if (!unbacked_) deferred_.store(false, std::memory_order_release);
  }
  // Whether the elements have no memory yet (made by Buffer(type, count), not yet written).
  bool unbacked() const { return unbacked_; }

 private:
  void write_deferred() const;
  void compute_lazy() const;
  MemoryBlock block() const { return {data_, capacity_, SIZE_MAX, budget_.get()}; }

  static std::uint64_t new_version();

  static constexpr std::size_t kInlineBytes = 64;
  std::optional<std::uint64_t> uniform_;
  std::shared_ptr<const SegmentValues> segment_values_;
  std::optional<std::uint32_t> indices_below_;
  std::optional<Segdes> lengths_of_;
  std::optional<std::uint64_t> wrapped_count_;
  std::uint64_t version_ = new_version();
  mutable std::byte* data_;  // mutable: a lazy buffer takes over its memory when computed
  mutable std::size_t capacity_;
  mutable std::atomic<bool> deferred_{false};
  mutable bool unbacked_ = false;  // no memory until the deferred fill is written
  // Charged for the memory (the budget current when the buffer was made); what a lazy buffer
  // acquires when computed, and an unbacked one when written, is charged to it too.
  mutable std::shared_ptr<MemoryBudget> budget_;
  mutable std::atomic<bool> lazy_pending_{false};
  mutable std::unique_ptr<PendingElements> expression_;  // while lazy_pending_
  std::size_t deferred_count_ = 0;
  Type deferred_type_ = Type::Int;
  alignas(16) std::byte inline_[kInlineBytes];
};

// A segment descriptor: the exclusive prefix sums of its lengths (segments + 1 offsets of 32
// bits; LENGTHS computes the lengths from them), 4 bytes a segment like the classic's. A wide
// one, whose total is past the longest vector, has offsets of 64 bits (WideOffset): nothing of
// its length is ever stored, so only what streams over it reads it (view() refuses it).
struct SegdesStorage final : Storage {
  explicit SegdesStorage(std::size_t segment_count, bool wide_offsets = false)
      : segments(segment_count),
        wide(wide_offsets),
        offsets((segment_count + 1) * (wide_offsets ? sizeof(WideOffset) : sizeof(SegOffset))) {}
  // Offsets held in memory other descriptors share (0, 1, 2, ...: one-element segments).
  SegdesStorage(std::size_t segment_count, std::shared_ptr<const Buffer> shared)
      : segments(segment_count), offsets(0), shared_offsets(std::move(shared)) {}
  const SegOffset* offset_data() const {
    return reinterpret_cast<const SegOffset*>((shared_offsets ? *shared_offsets : offsets).bytes());
  }
  const WideOffset* wide_offset_data() const {
    return reinterpret_cast<const WideOffset*>(offsets.bytes());
  }
  std::size_t segments;
  bool wide = false;  // the offsets are WideOffsets
  // Past the longest vector: the total of the descriptor whose block (one process's part) this
  // one is (cvl-mpi: mark_streamed_block). What is made over it is only streamed, as over a wide
  // one: an op that would store it, or a pending result read as memory, is refused.
  std::uint64_t streamed_total = 0;
  Buffer offsets;  // empty when shared_offsets holds them
  std::shared_ptr<const Buffer> shared_offsets;
  // > 0: every segment has this length (the view's `uniform`); 0: not known to be uniform.
  std::int64_t uniform = 0;
  // Each element's segment number (an INT vector), once a permute of a DIST over this
  // descriptor needed it (gather_composition.cpp): kept while the descriptor lives, so that
  // every field spread over it is moved by the same positions.
  std::shared_ptr<Storage> segment_numbers;
};

template <class T>
constexpr Type type_of();
template <>
constexpr Type type_of<std::int32_t>() {
  return Type::Int;
}
template <>
constexpr Type type_of<double>() {
  return Type::Float;
}
template <>
constexpr Type type_of<std::uint8_t>() {
  return Type::Bool;
}

// The elements of `v` as T (the caller knows the type); nullptr only for a handle without storage.
template <class T>
T* elements(const Vector& v) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  return buffer ? reinterpret_cast<T*>(buffer->bytes()) : nullptr;
}

// The bits every element of `v` has, where the op that made it recorded them (Buffer::uniform).
inline std::optional<std::uint64_t> uniform_bits(const Vector& v) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  return buffer && v.length > 0 ? buffer->uniform() : std::nullopt;
}
// Records that every element of `v`, just written, has the bits `bits` (element-sized).
inline void mark_uniform(const Vector& v, std::uint64_t bits) {
  if (auto* buffer = static_cast<Buffer*>(v.storage.get()); buffer && v.length > 0)
    buffer->set_uniform(bits);
}
// What a BPERMUTE found of `v`'s elements: each, read as unsigned, is below this
// (Buffer::indices_below).
inline std::optional<std::uint32_t> indices_below(const Vector& v) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  return buffer ? buffer->indices_below() : std::nullopt;
}
// Vectors of one value shorter than this are written at once: deferring (and computing on one
// element) does not pay below it.
inline constexpr std::size_t kDeferredFillMin = 256;
// A vector of `length` elements all the element-sized `bits`, written only when something takes
// their address (Buffer::defer_fill): the first operand of `reuse` that may become the result,
// else a buffer whose memory is acquired (and charged) only then.
Vector uniform_vector(std::span<Vector> reuse, Type type, std::size_t length, std::uint64_t bits);
// The values per segment of `v`, where a DIST recorded them (Buffer::segment_values).
inline std::shared_ptr<const SegmentValues> segment_values_of(const Vector& v) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  return buffer && v.length > 0 ? buffer->segment_values() : nullptr;
}
// A DIST over segments of at least this many elements on average is described, not written
// (SegmentValues): shorter ones cost an elementwise op more per segment than it saves.
inline constexpr std::size_t kSegmentValuesMinAverage = 64;
// A vector of `rule.segments.total` elements, one value per segment from `rule.values`, written
// only when something takes their address (Buffer::defer_fill), in memory acquired (and charged)
// only then.
Vector segment_values_vector(SegmentValues rule);
// The INT lengths of `sd`'s segments (LENGTHS), written only when something takes their address
// (Buffer::defer_fill), in memory acquired (and charged) only then; the buffer remembers `sd`
// (Buffer::lengths_of).
Vector lengths_vector(const Segdes& sd);
// out[k] = the length of sd's segment k, for k in [lo, hi).
void write_lengths(const SegmentView& sd, std::int32_t* out, std::size_t lo, std::size_t hi);
void write_lengths(const WideSegmentView& sd, std::int32_t* out, std::size_t lo, std::size_t hi);
// The same, of a descriptor either wide or not.
void write_lengths(const Segdes& sd, std::int32_t* out, std::size_t lo, std::size_t hi);
// The descriptor whose lengths `v` holds (Buffer::lengths_of), when they are all of `v`.
inline const Segdes* lengths_descriptor(const Vector& v) {
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  if (!buffer || !buffer->lengths_of() || buffer->lengths_of()->segments != v.length) return nullptr;
  return &*buffer->lengths_of();
}
// Before an op overwrites or drops its operands: the deferred fills of those no other handle
// shares are not needed (their values were read with uniform_bits()).
void drop_deferred_fills(std::span<Vector> operands);

// A new vector with uninitialised elements; length 0 shares one empty buffer.
Vector allocate(Type type, std::size_t length);
// A new vector with all bits zero (0, 0.0, F), written in parallel above the threshold.
Vector allocate_zeroed(const Parallel& par, Type type, std::size_t length);
// Whether `v` may become the result: no other handle shares it and the shape matches. When it
// may, what its elements were known to be goes (Buffer::forget_values: the caller overwrites
// them; every reuse is decided here).
bool reusable(const Vector& v, Type type, std::size_t length);
// The first of `operands` that may become the result (reusable), or nullptr.
Vector* first_reusable(std::span<Vector> operands, Type type, std::size_t length);
// The operand itself when reusable (its elements are then overwritten), else a new vector.
Vector reuse_or_allocate(Vector&& operand, Type type, std::size_t length);
// An unshared copy of `v` (itself when already unshared): for ops that write into their input.
Vector unshared(const Parallel& par, Vector&& v);

// Scratch memory for one operation (rank's sort buffers, the FUSED evaluator's block buffers).
template <class T>
class Scratch {
  static_assert(std::is_trivial_v<T>);

 public:
  explicit Scratch(std::size_t count) : buffer_(count * sizeof(T)) {}
  T* data() const { return reinterpret_cast<T*>(buffer_.bytes()); }

 private:
  Buffer buffer_;
};

// The view of a descriptor made by this backend (a default-constructed one has no segments).
// A wide one is refused (vector_too_long_message): every op that reads a view would store or
// index something of its total's length.
SegmentView view(const Segdes& sd);
// Whether `sd` is wide: its total is past the longest vector (kMaxVectorLength).
bool is_wide(const Segdes& sd);
// The total of the longer descriptor `sd` is a block of (SegdesStorage::streamed_total), or 0.
std::uint64_t streamed_total(const Segdes& sd);
// The view of a wide descriptor, for what streams over it without storing anything that long.
WideSegmentView wide_view(const Segdes& sd);

// Refuses a vector longer than any a program may make (vector_too_long_message): a wide
// descriptor describes more elements than that, which may only be streamed.
inline void check_storable(std::size_t length) {
  if (length > kMaxVectorLength) throw Error(vector_too_long_message(length));
}

// A descriptor from an INT lengths vector. Negative lengths are an error naming `op_name`
// ("MAKE_SEGDES") and the first bad position. A total of 2^31 or more makes a wide descriptor.
Segdes segdes_from_lengths(const Parallel& par, const Vector& lengths, const char* op_name);
// The INT lengths of a descriptor's segments (LENGTHS), a new vector that remembers `sd`
// (Buffer::lengths_of); written when first read (lengths_vector) unless short.
Vector segment_lengths(const Segdes& sd);

}  // namespace cvl::cpu
