// Element buffers and the cache of large blocks behind them.
#include "storage.hpp"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <string>
#include <vector>

namespace cvl::cpu {
namespace {

constexpr std::size_t kAlignment = 64;
// Blocks this large are kept for reuse when freed: they are mmap'ed by malloc, so a fresh one
// page-faults on every 4 KiB touched (an op on 10^7 elements would spend more time faulting
// than computing). The classic interpreter avoids this with one preallocated arena.
constexpr std::size_t kCachedFrom = std::size_t{256} << 10;
constexpr std::size_t kCacheLimit = std::size_t{1} << 30;

// Large requests are rounded up to one of four sizes per power of two so that a freed block
// serves later requests of similar size; the untouched tail costs address space only.
std::size_t block_size(std::size_t bytes) {
  if (bytes < kCachedFrom) return (bytes + kAlignment - 1) & ~(kAlignment - 1);
  int top = std::bit_width(bytes - 1) - 1;  // 2^top < bytes <= 2^(top+1)
  std::size_t step = std::size_t{1} << (top - 2);
  return (bytes + step - 1) / step * step;
}

// Blocks from this size on are mapped on 2 MiB boundaries and marked for transparent huge
// pages: one TLB entry then covers 2 MiB, which is most of the cost of random gathers and
// scatters over large vectors, and first touch faults once per 2 MiB instead of per 4 KiB.
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::byte* allocate_fresh(std::size_t size) {
  if (size < kHugePage) return static_cast<std::byte*>(std::aligned_alloc(kAlignment, size));
  const std::size_t mapped = size + kHugePage;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  // Keep the 2 MiB-aligned part; give back the ends.
  auto start = reinterpret_cast<std::uintptr_t>(raw);
  std::uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  std::size_t tail = start + mapped - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // a hint; failure is harmless
  return reinterpret_cast<std::byte*>(aligned);
}

void free_block(std::byte* data, std::size_t size) {
  if (size < kHugePage) std::free(data);
  else munmap(data, size);
}

class BlockCache {
 public:
  std::byte* acquire(std::size_t size) {
    if (size >= kCachedFrom) {
      std::lock_guard lock(mutex_);
      for (std::size_t i = blocks_.size(); i-- > 0;) {
        if (blocks_[i].size != size) continue;
        std::byte* found = blocks_[i].data;
        cached_bytes_ -= size;
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
        return found;
      }
    }
    std::byte* fresh = allocate_fresh(size);
    if (!fresh && size >= kCachedFrom) {
      trim(0);
      fresh = allocate_fresh(size);
    }
    if (!fresh) throw Error("out of vector memory (" + std::to_string(size) + " bytes)");
    return fresh;
  }

  void release(std::byte* data, std::size_t size) {
    if (size < kCachedFrom || size > kCacheLimit / 2) {
      free_block(data, size);
      return;
    }
    std::lock_guard lock(mutex_);
    blocks_.push_back({data, size});
    cached_bytes_ += size;
    trim_locked(kCacheLimit);
  }

 private:
  struct Block {
    std::byte* data;
    std::size_t size;
  };

  void trim(std::size_t limit) {
    std::lock_guard lock(mutex_);
    trim_locked(limit);
  }
  // Frees the longest-unused blocks until at most `limit` bytes stay cached.
  void trim_locked(std::size_t limit) {
    std::size_t drop = 0;
    while (cached_bytes_ > limit && drop < blocks_.size()) {
      free_block(blocks_[drop].data, blocks_[drop].size);
      cached_bytes_ -= blocks_[drop].size;
      ++drop;
    }
    blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(drop));
  }

  std::mutex mutex_;
  std::vector<Block> blocks_;  // oldest first
  std::size_t cached_bytes_ = 0;
};

// Never destroyed: vectors held in static objects of the program may be freed after main.
BlockCache& block_cache() {
  static auto* cache = new BlockCache;
  return *cache;
}

}  // namespace

Buffer::Buffer(std::size_t bytes) {
  if (bytes <= kInlineBytes) {
    data_ = inline_;
    capacity_ = kInlineBytes;
  } else {
    capacity_ = block_size(bytes);
    data_ = block_cache().acquire(capacity_);
  }
}

Buffer::~Buffer() {
  if (data_ != inline_) block_cache().release(data_, capacity_);
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
