// Tuning constants of cvl-cuda, in one place: launch geometry, the host/device threshold, pool
// and fault-board sizes. Nothing else in the library writes a launch-shape literal.
#pragma once

#include <cstddef>

namespace cvl::cuda_tuning {

// Grid-stride launches: 256 threads per block, at most this many blocks (enough to fill an
// H100's 132 SMs several times over; more blocks only add scheduling).
inline constexpr unsigned kBlockSize = 256;
inline constexpr unsigned kMaxBlocks = 132 * 16;

// Default host threshold: an operation whose inputs are all host-resident and at most this many
// elements long runs on the host with cvl-cpu's code. A launch costs ~3-5 us and a round trip
// ~10 us, time in which cvl-cpu's single-threaded loops get through thousands of elements
// (bench/RESULTS.md), so below a few thousand elements the host finishes first and nothing
// crosses PCIe. Provisional: the final number is to be measured on the GPU with bench/ (per-op
// microbenchmark at 10^2..10^5); --host-threshold overrides it (0 = everything on the device).
inline constexpr long long kDefaultHostThreshold = 4096;

// A device-to-host download of a vector at most this long caches the whole vector on the host
// (an IF's boolean, a scalar the program prints), so later small ops on it stay on the host.
inline constexpr std::size_t kHostCacheMaxElements = 4096;

// The stream-ordered pool keeps freed memory (release threshold: never give it back while the
// backend lives), so steady-state allocation costs no driver call.
inline constexpr unsigned long long kPoolReleaseThreshold = ~0ull;

// Deferred fault words: this many operations may fault before the next synchronization; when
// they are all taken the backend synchronizes and checks them.
inline constexpr std::size_t kFaultSlots = 256;

// Pending counts (cvl/length.hpp): this many may wait on the device for the next
// synchronization; a new one past that synchronizes first.
inline constexpr std::size_t kCountSlots = 256;

// A segmented reduction of at most this many elements runs as one launch, one thread folding
// each segment, instead of a reduce-by-key (three to four kernels): a thread's sequential fold
// of a few thousand elements costs about what one more launch does.
inline constexpr std::size_t kSmallFoldElements = 2048;

// The FUSED interpreter kernel keeps one value per superoperator node in registers/local memory,
// and takes each call's operand views with the launch (64 bytes each, kernel arguments).
inline constexpr std::size_t kMaxFusedNodes = 64;
inline constexpr std::size_t kMaxFusedOperands = 32;

// A reduction root of FUSED over more elements than this is streamed: its body is evaluated this
// many elements per launch into one buffer and folded into the per-segment results, so it stores
// nothing of the domain's length (fused.hpp: StreamedFold). About what Madsen and Filinski's
// streaming NESL found best on a GPU, and 2 MB of doubles.
inline constexpr std::size_t kStreamChunkElements = std::size_t{1} << 18;

// A reduction of pending results (VCODE's elementwise ops, INDEX, DIST: pending_expression.hpp)
// over at most this many elements evaluates them whole into one buffer (32 MB of doubles) and
// reduces that: two launches, where streaming takes two or three per chunk. Past it, streamed,
// so that its memory stays bounded whatever the length.
inline constexpr std::size_t kPendingStreamElements = std::size_t{1} << 22;

}  // namespace cvl::cuda_tuning
