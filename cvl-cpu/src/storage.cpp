// Element buffers: 64-byte aligned from the C library's allocator, small ones inside the handle.
#include "storage.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cvl/memory_limit.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kAlignment = 64;

// Bytes of live heap buffers (vectors, descriptors, scratch) in this process, and the limit
// (--max-memory). Process-wide: buffers outlive no backend in vinterp, and tests that make several
// backends share one count.
std::atomic<std::uint64_t> bytes_in_use{0};
std::atomic<std::uint64_t> bytes_limit{UINT64_MAX};

// Counts `bytes` as in use, or throws the limit's error without counting them.
void reserve(std::uint64_t bytes) {
  const std::uint64_t before = bytes_in_use.fetch_add(bytes, std::memory_order_relaxed);
  const std::uint64_t limit = bytes_limit.load(std::memory_order_relaxed);
  if (before + bytes > limit || before + bytes < before) {
    bytes_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    throw_memory_limit(bytes, before, limit);
  }
}

}  // namespace

void set_memory_limit(std::uint64_t bytes) {
  bytes_limit.store(bytes == 0 ? default_host_memory_limit() : bytes, std::memory_order_relaxed);
}

std::uint64_t memory_in_use() { return bytes_in_use.load(std::memory_order_relaxed); }

Buffer::Buffer(std::size_t bytes) {
  if (bytes <= kInlineBytes) {
    data_ = inline_;
    capacity_ = kInlineBytes;
    return;
  }
  if (bytes > SIZE_MAX - kAlignment) throw_memory_limit(bytes, memory_in_use(), bytes_limit);
  capacity_ = (bytes + kAlignment - 1) & ~(kAlignment - 1);
  reserve(capacity_);
  data_ = static_cast<std::byte*>(std::aligned_alloc(kAlignment, capacity_));
  if (!data_) {
    bytes_in_use.fetch_sub(capacity_, std::memory_order_relaxed);
    throw Error("out of vector memory: " + std::to_string(bytes) +
                " bytes requested, the C library's allocator has none (" +
                std::to_string(memory_in_use()) + " in use)");
  }
}

Buffer::~Buffer() {
  if (data_ != inline_) {
    std::free(data_);
    bytes_in_use.fetch_sub(capacity_, std::memory_order_relaxed);
  }
}

Vector allocate(Type type, std::size_t length) {
  if (length == 0) {
    static const std::shared_ptr<Storage> empty = std::make_shared<Buffer>(0);
    return Vector{type, 0, empty};
  }
  return Vector{type, length, std::make_shared<Buffer>(length * element_size(type))};
}

Vector allocate_zeroed(const Parallel& par, Type type, std::size_t length) {
  Vector v = allocate(type, length);
  std::byte* bytes = elements<std::byte>(v);
  parallel_for(par, length * element_size(type), kMemoryBoundThreshold * 4,
               [&](std::size_t b, std::size_t e) { std::memset(bytes + b, 0, e - b); });
  return v;
}

bool reusable(const Vector& v, Type type, std::size_t length) {
  return v.storage && v.storage.use_count() == 1 && v.type == type && v.length == length;
}

Vector reuse_or_allocate(Vector&& operand, Type type, std::size_t length) {
  if (reusable(operand, type, length)) return std::move(operand);
  return allocate(type, length);
}

Vector unshared(const Parallel& par, Vector&& v) {
  if (reusable(v, v.type, v.length)) return std::move(v);
  Vector copy = allocate(v.type, v.length);
  const std::byte* from = elements<std::byte>(v);
  std::byte* to = elements<std::byte>(copy);
  parallel_for(par, v.length * element_size(v.type), kMemoryBoundThreshold * 4,
               [&](std::size_t b, std::size_t e) { std::memcpy(to + b, from + b, e - b); });
  return copy;
}

}  // namespace cvl::cpu
