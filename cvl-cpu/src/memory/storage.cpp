// Element buffers: small ones inside the handle, the rest from the buffer cache.
#include "memory/storage.hpp"

#include <cstring>
#include <mutex>

#include "memory/streaming_fill.hpp"

namespace cvl::cpu {

std::uint64_t Buffer::new_version() {
  static std::atomic<std::uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

Buffer::Buffer(std::size_t bytes) {
  if (bytes <= kInlineBytes) {
    data_ = inline_;
    capacity_ = kInlineBytes;
    return;
  }
  budget_ = current_budget();
  const MemoryBlock block = acquire_memory(bytes, *budget_);
  data_ = block.data;
  capacity_ = block.bytes;
}

Buffer::Buffer(Type type, std::size_t count) : data_(inline_), capacity_(kInlineBytes) {
  if (count * element_size(type) > kInlineBytes) {
    capacity_ = 0;
    unbacked_ = true;
    budget_ = current_budget();
  }
  defer_fill(count, type);
}

Buffer::Buffer(std::unique_ptr<PendingElements> pending)
    : data_(inline_), capacity_(0), budget_(current_budget()), expression_(std::move(pending)) {
  lazy_pending_.store(true, std::memory_order_release);
}

std::unique_ptr<PendingElements> Buffer::take_expression() {
  if (!lazy_pending_.load(std::memory_order_acquire)) return nullptr;
  lazy_pending_.store(false, std::memory_order_release);
  return std::move(expression_);
}

// Under one lock for all buffers, which an expression's operands take again (a pending operand
// is computed first); whichever thread asks first computes. The result's memory is taken over
// when nothing else holds it (it is new, or an operand reused in place), else copied.
void Buffer::compute_lazy() const {
  static std::recursive_mutex computing;
  std::lock_guard lock(computing);
  if (!lazy_pending_.load(std::memory_order_acquire)) return;
  std::unique_ptr<PendingElements> expression = std::move(expression_);
  Vector result;
  try {
    const MemoryScope charged(budget_);  // whichever thread reads it first, the maker pays
    result = expression->compute(this);
  } catch (...) {
    expression_ = std::move(expression);
    throw;
  }
  expression.reset();
  complete(std::move(result));
}

void Buffer::complete(Vector result) const {
  expression_.reset();
  auto* from = static_cast<Buffer*>(result.storage.get());
  const std::byte* bytes = from->bytes();
  if (result.storage.use_count() == 1 && from->data_ != from->inline_) {
    data_ = from->data_;
    capacity_ = from->capacity_;
    budget_ = from->budget_;
    from->data_ = from->inline_;
    from->capacity_ = kInlineBytes;
  } else {  // a pending result has kLazyMin elements or more: never inline
    const std::size_t size = result.length * element_size(result.type);
    const MemoryBlock block = acquire_memory(size, *budget_);
    data_ = block.data;
    capacity_ = block.bytes;
    std::memcpy(data_, bytes, size);
  }
  lazy_pending_.store(false, std::memory_order_release);
}

void Buffer::defer_fill(std::size_t count, Type type) {
  deferred_count_ = count;
  deferred_type_ = type;
  deferred_.store(true, std::memory_order_release);
}

// Under one lock for all buffers (a deferred fill is written once, whichever thread asks first).
// An unbacked buffer's memory is acquired here, charged to the budget it was made under: past the
// limit, the op that asked for the elements fails, and the buffer stays as it was.
void Buffer::write_deferred() const {
  static std::mutex writing;
  std::lock_guard lock(writing);
  if (!deferred_.load(std::memory_order_acquire)) return;
  if (unbacked_) {
    const MemoryBlock block =
        acquire_memory(deferred_count_ * element_size(deferred_type_), *budget_);
    data_ = block.data;
    capacity_ = block.bytes;
    unbacked_ = false;
  }
  const bool streaming = deferred_count_ * element_size(deferred_type_) >= kStreamingBytes;
  with_element_bits(deferred_type_, [&]<class Bits>() {
    Bits* out = reinterpret_cast<Bits*>(data_);
    if (lengths_of_) {
      write_lengths(*lengths_of_, reinterpret_cast<std::int32_t*>(out), 0, deferred_count_);
      return;
    }
    if (!segment_values_) {
      fill_values(out, deferred_count_, static_cast<Bits>(uniform_.value_or(0)), streaming);
      return;
    }
    const SegmentView sd = view(segment_values_->segments);
    const Bits* values = reinterpret_cast<const Bits*>(
        static_cast<Buffer*>(segment_values_->values.storage.get())->bytes());
    for (std::size_t k = 0; k < sd.segments; ++k)
      fill_values(out + sd.start(k), sd.length(k), values[k], streaming);
  });
  if (streaming) streaming_done();
  deferred_.store(false, std::memory_order_release);
}

Vector uniform_vector(std::span<Vector> reuse, Type type, std::size_t length, std::uint64_t bits) {
  drop_deferred_fills(reuse);
  if (length == 0) return allocate(type, 0);
  check_storable(length);
  Vector* taken = first_reusable(reuse, type, length);
  Vector out = taken ? std::move(*taken)
                     : Vector{type, length, std::make_shared<Buffer>(type, length)};
  auto* buffer = static_cast<Buffer*>(out.storage.get());
  buffer->set_uniform(bits);
  if (taken) buffer->defer_fill(length, type);
  return out;
}

namespace {

template <class Offset>
void write_differences(const Offset* __restrict from, std::int32_t* __restrict to, std::size_t lo,
                       std::size_t hi) {
  // Locals the compiler knows apart (the descriptor's memory and the lengths'): it vectorizes.
  for (std::size_t k = lo; k < hi; ++k) to[k] = static_cast<std::int32_t>(from[k + 1] - from[k]);
}

}  // namespace

void write_lengths(const SegmentView& sd, std::int32_t* out, std::size_t lo, std::size_t hi) {
  write_differences(sd.offsets, out, lo, hi);
}

void write_lengths(const WideSegmentView& sd, std::int32_t* out, std::size_t lo, std::size_t hi) {
  write_differences(sd.offsets, out, lo, hi);
}

void write_lengths(const Segdes& sd, std::int32_t* out, std::size_t lo, std::size_t hi) {
  if (is_wide(sd))
    write_lengths(wide_view(sd), out, lo, hi);
  else
    write_lengths(view(sd), out, lo, hi);
}

Vector lengths_vector(const Segdes& sd) {
  const std::size_t length = sd.segments;
  Vector out{Type::Int, length, std::make_shared<Buffer>(Type::Int, length)};
  static_cast<Buffer*>(out.storage.get())->set_lengths_of(sd);
  return out;
}

Vector segment_values_vector(SegmentValues rule) {
  // Written now if deferred itself: write_deferred reads it under its lock.
  elements<std::byte>(rule.values);
  const Type type = rule.values.type;
  const std::size_t length = rule.segments.total;
  check_storable(length);
  Vector out{type, length, std::make_shared<Buffer>(type, length)};
  static_cast<Buffer*>(out.storage.get())
      ->set_segment_values(std::make_shared<const SegmentValues>(std::move(rule)));
  return out;
}

void drop_deferred_fills(std::span<Vector> operands) {
  for (const Vector& v : operands)
    if (v.storage && v.storage.use_count() == 1) static_cast<Buffer*>(v.storage.get())->cancel_deferred();
}

Buffer::~Buffer() {
  if (data_ != inline_) release_memory(block());
}

Vector allocate(Type type, std::size_t length) {
  if (length == 0) {
    static const std::shared_ptr<Storage> empty = std::make_shared<Buffer>(0);
    return Vector{type, 0, empty};
  }
  check_storable(length);
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
  auto* buffer = static_cast<Buffer*>(v.storage.get());
  // Elements without memory (a vector of one value never written out) are not worth writing out
  // only to be overwritten: new memory comes from the pool's resident pages.
  if (buffer->unbacked()) return false;
  buffer->bytes();  // a deferred fill is written: the op may keep some elements (DPERMUTE)
  buffer->forget_values();
  return true;
}

Vector* first_reusable(std::span<Vector> operands, Type type, std::size_t length) {
  for (Vector& v : operands)
    if (reusable(v, type, length)) return &v;
  return nullptr;
}

Vector reuse_or_allocate(Vector&& operand, Type type, std::size_t length) {
  if (reusable(operand, type, length)) return std::move(operand);
  return allocate(type, length);
}

Vector unshared(const Parallel& par, Vector&& v) {
  if (v.storage && v.storage.use_count() == 1) {  // its elements are kept: written out if deferred
    auto* buffer = static_cast<Buffer*>(v.storage.get());
    buffer->bytes();
    buffer->forget_values();
    return std::move(v);
  }
  Vector copy = allocate(v.type, v.length);
  const std::byte* from = elements<std::byte>(v);
  std::byte* to = elements<std::byte>(copy);
  parallel_for(par, v.length * element_size(v.type), kMemoryBoundThreshold * 4,
               [&](std::size_t b, std::size_t e) { std::memcpy(to + b, from + b, e - b); });
  return copy;
}

}  // namespace cvl::cpu
