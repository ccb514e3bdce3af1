// Memory behind cvl-cpu's handles: element buffers (small ones inside the handle object),
// segment descriptors (lengths plus start offsets), and typed access to both. The memory comes
// from buffer_cache.hpp, which also counts it against --max-memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

#include "buffer_cache.hpp"
#include "cvl/types.hpp"
#include "parallel.hpp"

namespace cvl::cpu {

// Raw memory of at least `bytes` bytes, 64-byte aligned. Buffers of up to 64 bytes (scalars are
// most vectors a program makes) live inside the object, 16-byte aligned, so one allocation makes
// the whole handle; larger ones come from the buffer cache (and count against --max-memory).
class Buffer final : public Storage {
 public:
  explicit Buffer(std::size_t bytes);
  ~Buffer() override;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  std::byte* bytes() const { return data_; }
  std::size_t capacity() const { return capacity_; }

  // The bits every element has, when the op that wrote them wrote them all alike (a DIST over one
  // segment, an elementwise op of such vectors): later elementwise ops compute on one element.
  // reusable() drops it, since a reused buffer is about to be overwritten.
  std::optional<std::uint64_t> uniform;

 private:
  static constexpr std::size_t kInlineBytes = 64;
  std::byte* data_;
  std::size_t capacity_;
  alignas(16) std::byte inline_[kInlineBytes];
};

// A segment descriptor: the exclusive prefix sums of its lengths (segments + 1 offsets of 32
// bits; LENGTHS computes the lengths from them), 4 bytes a segment like the classic's.
struct SegdesStorage final : Storage {
  explicit SegdesStorage(std::size_t segment_count)
      : segments(segment_count), offsets((segment_count + 1) * sizeof(SegOffset)) {}
  std::size_t segments;
  Buffer offsets;
  // > 0: every segment has this length (the view's `uniform`); 0: not known to be uniform.
  std::int64_t uniform = 0;
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
  return buffer && v.length > 0 ? buffer->uniform : std::nullopt;
}
// Records that every element of `v`, just written, has the bits `bits` (element-sized).
inline void mark_uniform(const Vector& v, std::uint64_t bits) {
  if (auto* buffer = static_cast<Buffer*>(v.storage.get()); buffer && v.length > 0)
    buffer->uniform = bits;
}

// A new vector with uninitialised elements; length 0 shares one empty buffer.
Vector allocate(Type type, std::size_t length);
// A new vector with all bits zero (0, 0.0, F), written in parallel above the threshold.
Vector allocate_zeroed(const Parallel& par, Type type, std::size_t length);
// Whether `v` may become the result: no other handle shares it and the shape matches. When it
// may, its uniform mark goes (the caller overwrites it; every reuse is decided here).
bool reusable(const Vector& v, Type type, std::size_t length);
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
SegView view(const Segdes& sd);

// A descriptor from an INT lengths vector. Negative lengths are an error naming `op_name`
// ("MAKE_SEGDES") and the first bad position, and so is a total of 2^31 or more.
Segdes segdes_from_lengths(const Parallel& par, const Vector& lengths, const char* op_name);
// The INT lengths of a descriptor's segments (LENGTHS), a new vector.
Vector segment_lengths(const Parallel& par, const SegView& sd);

}  // namespace cvl::cpu
