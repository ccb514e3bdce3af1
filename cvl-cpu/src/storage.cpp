// Element buffers: small ones inside the handle, the rest from the buffer cache.
#include "storage.hpp"

#include <cstring>

namespace cvl::cpu {

Buffer::Buffer(std::size_t bytes) {
  if (bytes <= kInlineBytes) {
    data_ = inline_;
    capacity_ = kInlineBytes;
    return;
  }
  const MemoryBlock block = acquire_memory(bytes);
  data_ = block.data;
  capacity_ = block.bytes;
}

Buffer::~Buffer() {
  if (data_ != inline_) release_memory({data_, capacity_});
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
  if (!v.storage || v.storage.use_count() != 1 || v.type != type || v.length != length)
    return false;
  static_cast<Buffer*>(v.storage.get())->uniform.reset();
  return true;
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
