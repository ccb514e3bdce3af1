// Segment descriptors: built from a lengths vector (MAKE_SEGDES, PACK); LENGTHS computes the
// lengths back from the offsets. A total past the longest vector makes a wide descriptor
// (64-bit offsets), which only streaming ops read (storage.hpp: wide_view).
#include <algorithm>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "memory/storage.hpp"

namespace cvl::cpu {
namespace {

std::int64_t sum_lengths(const std::int32_t* lengths, std::size_t lo, std::size_t hi) {
  std::int64_t sum = 0;
  for (std::size_t k = lo; k < hi; ++k) sum += lengths[k];
  return sum;
}

// Writes offsets[k + 1] = offsets[k] + lengths[k] over [lo, hi) starting from `start`; returns
// the running sum, or records the first negative length in `fault`. An offset past 32 bits is
// written wrapped; the caller rejects a total that large. Four lengths a step where SSE2 is
// there (a prefix sum in the lanes plus the step before's last offset): flattened programs make
// a descriptor of every nested field they move. The sign bits of the lengths and of the offsets
// are gathered without a branch: a negative length is searched for only when one is there, and
// while no offset reaches 2^31 (none has its top bit) every offset is exact, as each length is
// below 2^31; else the sum is counted again in 64 bits.
std::int64_t prefix_lengths(const std::int32_t* lengths, SegOffset* offsets, std::size_t lo,
                            std::size_t hi, std::int64_t start, IndexFault& fault) {
  std::uint32_t running = static_cast<std::uint32_t>(start);
  std::uint32_t signs = 0, reached = running | (start >= std::int64_t{1} << 31 ? 1u << 31 : 0u);
  std::size_t k = lo;
#if defined(__SSE2__)
  __m128i carry = _mm_set1_epi32(static_cast<int>(running));
  __m128i lane_signs = _mm_setzero_si128(), lane_reached = _mm_setzero_si128();
  for (; k + 4 <= hi; k += 4) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lengths + k));
    lane_signs = _mm_or_si128(lane_signs, x);
    x = _mm_add_epi32(x, _mm_slli_si128(x, 4));
    x = _mm_add_epi32(x, _mm_slli_si128(x, 8));
    x = _mm_add_epi32(x, carry);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(offsets + k + 1), x);
    lane_reached = _mm_or_si128(lane_reached, x);
    carry = _mm_shuffle_epi32(x, 0xFF);
  }
  running = static_cast<std::uint32_t>(_mm_cvtsi128_si32(carry));
  alignas(16) std::uint32_t sign_lanes[4], reached_lanes[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(sign_lanes), lane_signs);
  _mm_store_si128(reinterpret_cast<__m128i*>(reached_lanes), lane_reached);
  for (int lane = 0; lane < 4; ++lane) {
    signs |= sign_lanes[lane];
    reached |= reached_lanes[lane];
  }
#endif
  for (; k < hi; ++k) {
    signs |= static_cast<std::uint32_t>(lengths[k]);
    running += static_cast<std::uint32_t>(lengths[k]);
    offsets[k + 1] = running;
    reached |= running;
  }
  if ((signs >> 31) != 0 && !fault.found()) {
    const std::int32_t* negative =
        std::find_if(lengths + lo, lengths + hi, [](std::int32_t l) { return l < 0; });
    const auto bad = static_cast<std::size_t>(negative - lengths);
    fault = {bad, lengths[bad], 0};
  }
  if ((reached >> 31) != 0) return start + sum_lengths(lengths, lo, hi);
  return static_cast<std::int64_t>(running);
}

// Offsets 0, 1, ... m at least: descriptors of one-element segments share them. Flattened code
// makes one for every element it spreads a nested value over, as long as the vector is, again
// at every step of a recursion; sharing makes each after the first cost nothing. Held only while
// a descriptor holds them.
std::shared_ptr<const Buffer> unit_offsets(std::size_t m) {
  static std::mutex guard;
  static std::weak_ptr<const Buffer> latest;
  static std::size_t latest_segments = 0;
  std::lock_guard lock(guard);
  if (std::shared_ptr<const Buffer> held = latest.lock(); held && latest_segments >= m) return held;
  auto made = std::make_shared<Buffer>((m + 1) * sizeof(SegOffset));
  auto* offsets = reinterpret_cast<SegOffset*>(made->bytes());
  std::iota(offsets, offsets + m + 1, SegOffset{0});
  latest = made;
  latest_segments = m;
  return made;
}

// A wide descriptor (its total past the longest vector): the lengths' running sums in 64 bits.
// The lengths were checked (none is negative).
Segdes wide_segdes(const std::int32_t* lengths, std::size_t m, std::int64_t total) {
  auto storage = std::make_shared<SegdesStorage>(m, true);
  auto* offsets = reinterpret_cast<WideOffset*>(storage->offsets.bytes());
  WideOffset running = 0;
  offsets[0] = 0;
  for (std::size_t k = 0; k < m; ++k) offsets[k + 1] = running += lengths[k];
  return Segdes{m, static_cast<std::size_t>(total), std::move(storage)};
}

// A descriptor of m segments of `length` each, the lengths not read: a vector known to hold one
// value (Buffer::uniform), as DISTs of a constant and the lengths of such descriptors are.
Segdes uniform_segdes(std::size_t m, std::int64_t length) {
  const std::int64_t total = length * static_cast<std::int64_t>(m);
  if (static_cast<std::uint64_t>(total) > kMaxVectorLength) {  // 64-bit offsets
    auto storage = std::make_shared<SegdesStorage>(m, true);
    auto* offsets = reinterpret_cast<WideOffset*>(storage->offsets.bytes());
    for (std::size_t k = 0; k <= m; ++k) offsets[k] = static_cast<WideOffset>(k) * length;
    storage->uniform = length;
    return Segdes{m, static_cast<std::size_t>(total), std::move(storage)};
  }
  std::shared_ptr<SegdesStorage> storage;
  if (length == 1) {
    storage = std::make_shared<SegdesStorage>(m, unit_offsets(m));
  } else {
    storage = std::make_shared<SegdesStorage>(m);
    auto* offsets = reinterpret_cast<SegOffset*>(storage->offsets.bytes());
    for (std::size_t k = 0; k <= m; ++k) offsets[k] = static_cast<SegOffset>(k * length);
  }
  storage->uniform = m > 0 ? length : 0;
  return Segdes{m, static_cast<std::size_t>(total), std::move(storage)};
}

// The length every one of the m segments has, or 0 when they differ (or there are none). Only
// lengths that could be uniform are read, up to the first that differs: flattened programs
// often make descriptors of one-element segments, on which DIST and INDEX are copies.
std::int64_t uniform_length(const std::int32_t* lengths, std::size_t m, std::int64_t total) {
  if (m == 0 || total <= 0 || total % static_cast<std::int64_t>(m) != 0) return 0;
  const std::int64_t length = total / static_cast<std::int64_t>(m);
  const bool all = std::all_of(lengths, lengths + m, [&](std::int32_t l) { return l == length; });
  return all ? length : 0;
}

}  // namespace

SegmentView view(const Segdes& sd) {
  static const SegOffset no_offsets[1] = {0};
  auto* storage = static_cast<SegdesStorage*>(sd.storage.get());
  if (!storage) return SegmentView{0, 0, no_offsets, nullptr, nullptr, 0};
  if (storage->wide) throw Error(vector_too_long_message(sd.total));
  const SegOffset* offsets = storage->offset_data();
  return SegmentView{storage->segments, offsets[storage->segments], offsets, nullptr, nullptr,
                 storage->uniform};
}

bool is_wide(const Segdes& sd) {
  auto* storage = static_cast<SegdesStorage*>(sd.storage.get());
  return storage && storage->wide;
}

std::uint64_t streamed_total(const Segdes& sd) {
  auto* storage = static_cast<SegdesStorage*>(sd.storage.get());
  return storage ? storage->streamed_total : 0;
}

WideSegmentView wide_view(const Segdes& sd) {
  auto* storage = static_cast<SegdesStorage*>(sd.storage.get());
  if (!storage || !storage->wide) throw InternalError("a narrow descriptor read as wide");
  const WideOffset* offsets = storage->wide_offset_data();
  return WideSegmentView{storage->segments, static_cast<std::size_t>(offsets[storage->segments]),
                         offsets, nullptr, nullptr, storage->uniform};
}

Segdes segdes_from_lengths(const Parallel& par, const Vector& lengths_vector, const char* op_name) {
  if (const Segdes* known = lengths_descriptor(lengths_vector)) return *known;
  if (const auto* buffer = static_cast<const Buffer*>(lengths_vector.storage.get()))
    if (const std::optional<std::uint64_t> count = buffer->wrapped_count())
      throw Error(std::string(op_name) + ": a segment of " + std::to_string(*count) +
                  " elements, more than a vector may hold (" + std::to_string(kMaxVectorLength) + ")");
  const std::size_t m = lengths_vector.length;
  if (const std::optional<std::uint64_t> bits = uniform_bits(lengths_vector)) {
    const auto length = static_cast<std::int32_t>(*bits);
    if (length >= 0) return uniform_segdes(m, length);  // a negative one is reported below
  }
  const std::int32_t* lengths = elements<std::int32_t>(lengths_vector);
  auto storage = std::make_shared<SegdesStorage>(m);
  auto* offsets = reinterpret_cast<SegOffset*>(storage->offsets.bytes());
  offsets[0] = 0;

  IndexFault fault;
  std::int64_t total = 0;
  int team = par.team_for(m, kMemoryBoundThreshold);
  if (team <= 1) {
    total = prefix_lengths(lengths, offsets, 0, m, 0, fault);
  } else {
    // Two passes: block sums, then each block's prefix from the sum of the blocks before it.
    const std::size_t blocks = blocks_for_team(team);
    std::vector<std::int64_t> block_start(blocks + 1, 0);
    run_blocks(team, blocks, [&](std::size_t b) {
      block_start[b + 1] = sum_lengths(lengths, block_begin(m, b, blocks), block_begin(m, b + 1, blocks));
    });
    for (std::size_t b = 0; b < blocks; ++b) block_start[b + 1] += block_start[b];
    run_blocks(team, blocks, [&](std::size_t b) {
      IndexFault local;
      prefix_lengths(lengths, offsets, block_begin(m, b, blocks), block_begin(m, b + 1, blocks),
                     block_start[b], local);
      fault.merge(local);
    });
    total = block_start[blocks];
  }
  if (fault.found())
    throw Error(std::string(op_name) + ": negative segment length " + std::to_string(fault.index) +
                " at position " + std::to_string(fault.position));
  if (static_cast<std::uint64_t>(total) > kMaxVectorLength) {  // the 32-bit offsets wrapped
    Segdes wide = wide_segdes(lengths, m, total);
    static_cast<SegdesStorage*>(wide.storage.get())->uniform = uniform_length(lengths, m, total);
    return wide;
  }
  storage->uniform = uniform_length(lengths, m, total);
  return Segdes{m, static_cast<std::size_t>(total), std::move(storage)};
}

Vector segment_lengths(const Segdes& descriptor) {
  const std::size_t segments = descriptor.segments;
  if (segments >= kDeferredFillMin) return lengths_vector(descriptor);
  Vector out = allocate(Type::Int, segments);
  write_lengths(descriptor, elements<std::int32_t>(out), 0, segments);
  if (segments > 0) static_cast<Buffer*>(out.storage.get())->set_lengths_of(descriptor);
  return out;
}

}  // namespace cvl::cpu
