// The device runtime of one backend: the stream, the stream-ordered memory pool, host<->device
// copies, the launch helper, the deferred fault board and the counters behind BackendStats.
// The emulation implements the same class over host memory and an EmulatedStream (immediate, or
// a worker thread of its own with --emulate-async), so the rest of the library cannot tell the
// difference.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cvl/backend.hpp"
#include "cvl_cuda/length_guesses.hpp"
#include "platform.hpp"
#include "tuning.hpp"
#if CVL_CUDA_REAL
#include <cooperative_groups.h>

#include "check.hpp"
#else
#include "emulated_stream.hpp"
#endif

namespace cvl::CVL_CUDA_NS {

// How many items a launch covers: at most `bound` (known on the host: the grid is sized for it),
// and exactly the count in `count` where that is set (a pending length's cell on the device, read
// by the kernel itself; null: exactly `bound`).
struct Extent {
  std::size_t bound = 0;
  const std::int64_t* count = nullptr;

  CVL_HD std::size_t items() const {
    if (!count) return bound;
    const auto n = static_cast<std::size_t>(*count);
    return n < bound ? n : bound;
  }
};

#if CVL_CUDA_REAL
// The one kernel shape of the library: a grid-stride loop calling body(i) for i < n. The body is
// read where the arguments live (__grid_constant__), not copied per thread: a body may carry an
// array that it indexes at run time (FUSED's operand views).
template <class Body>
CVL_GLOBAL void grid_stride_kernel(Extent extent, __grid_constant__ const Body body) {
  const std::size_t n = extent.items();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    body(i);
}

// The phased kernel shape: body(phase, i) for every i < n in each of Body::kPhases phases, every
// thread of the grid through phase p before any begins p + 1 (a grid-wide barrier: the launch is
// cooperative, so every block of the grid is resident at once).
template <class Body>
CVL_GLOBAL void phased_grid_stride_kernel(Extent extent, Body body) {
  const std::size_t n = extent.items();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int phase = 0; phase < Body::kPhases; ++phase) {
    if (phase > 0) grid.sync();
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
      body(phase, i);
  }
}

// One phase of a phased body as a kernel of its own: where no cooperative launch is possible.
template <class Body>
struct OnePhase {
  Body body;
  int phase;
  CVL_HD void operator()(std::size_t i) const { body(phase, i); }
};
#endif

// A block's scratch in the tiled shape (shared memory on a GPU): two words per thread, room for a
// block-wide scan that reads one half while it writes the other.
struct TileScratch {
  std::uint32_t words[2][cuda_tuning::kBlockSize];
};

#if CVL_CUDA_REAL
// One phase of the tiled shape: each tile t < body.tiles(phase) taken by one block, through
// Body::steps(phase) steps with a block barrier after each.
template <class Body>
__device__ void run_tiled_phase(const Body& body, int phase, TileScratch& scratch) {
  const std::size_t tiles = body.tiles(phase);
  const int steps = Body::steps(phase);
  for (std::size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x)
    for (int step = 0; step < steps; ++step) {
      body(phase, step, tile, threadIdx.x, scratch);
      __syncthreads();
    }
}

// The tiled phased shape (Device::launch_tiles): every phase in one cooperative kernel, a
// grid-wide barrier between phases.
template <class Body>
CVL_GLOBAL void tiled_phases_kernel(Body body) {
  __shared__ TileScratch scratch;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int phase = 0; phase < Body::kPhases; ++phase) {
    if (phase > 0) grid.sync();
    run_tiled_phase(body, phase, scratch);
  }
}

// One phase of it as a kernel of its own: where no cooperative launch is possible.
template <class Body>
CVL_GLOBAL void tiled_one_phase_kernel(Body body, int phase) {
  __shared__ TileScratch scratch;
  run_tiled_phase(body, phase, scratch);
}
#endif

class Device;
class DeviceBuffer;

// Device memory traffic (BackendStats::device_bytes_moved): what one launch or library call reads
// and writes, from a formula for what its kernel touches, written beside the call that launches
// it (dispatch.cu, library.cu, fused.cu; shared parts in traffic.hpp). A counter per launch,
// never per element: where a kernel's accesses depend on data (a flag, a claim won), the formula
// takes the larger case. `per_item` bytes for each item the launch covers (the emulation counts
// the items it ran, a count pending on the device included; a GPU counts the host bound) and
// `once` bytes in all; and `per_counted` bytes for each item of `counted` (a count the launch itself
// writes, such as PACK's kept elements: the emulation reads it after the launch ran, a GPU takes
// its bound), for accesses only those items make.
struct Traffic {
  std::uint64_t per_item = 0;
  std::uint64_t once = 0;
  std::uint64_t per_counted = 0;
  Extent counted{};

  Traffic operator+(Traffic other) const {
    return {per_item + other.per_item, once + other.once, per_counted + other.per_counted,
            per_counted ? counted : other.counted};
  }
  // What a launch over `items` moved, once it has run.
  std::uint64_t over(std::size_t items) const {
#if CVL_CUDA_REAL
    const std::size_t counted_items = counted.bound;
#else
    const std::size_t counted_items = counted.items();  // the emulation's cells are host memory
#endif
    return per_item * items + once + per_counted * counted_items;
  }
};

// A word of the Device's fault board, taken by one operation that may fault on data: its kernels
// write the first faulting position there. The word is open while this handle lives (the
// operation's scope): a synchronization the operation makes before its kernel is queued (holds(),
// a full count board) keeps the word for the next one instead of reading it once and dropping it.
class FaultWord {
 public:
  FaultWord() = default;  // none: the operation cannot fault
  FaultWord(Device* device, unsigned long long* word, std::uint64_t serial)
      : device_(device), word_(word), serial_(serial) {}
  FaultWord(FaultWord&& other) noexcept { *this = std::move(other); }
  FaultWord& operator=(FaultWord&& other) noexcept;
  FaultWord(const FaultWord&) = delete;
  FaultWord& operator=(const FaultWord&) = delete;
  ~FaultWord() { close(); }

  // What the kernels are given (null: none).
  unsigned long long* get() const { return word_; }

 private:
  void close() noexcept;

  Device* device_ = nullptr;  // the backend's, which outlives its operations
  unsigned long long* word_ = nullptr;
  std::uint64_t serial_ = 0;
};

// A count the device computes (cvl/length.hpp), held in a cell of the Device's count board until
// the next synchronization reads every cell at once and resolves it.
class DeviceCount final : public PendingCount {
 public:
  static constexpr std::uint32_t kNoSite = speculation::LengthGuesses::kNoSite;
  DeviceCount(std::weak_ptr<Device> device, std::int64_t* cell, std::size_t bound)
      : PendingCount(bound), device_(std::move(device)), cell_(cell) {}
  // Where kernels write the count and read it (valid until the count is resolved).
  std::int64_t* cell() const { return cell_; }
  // The instruction whose history a guessed bound came from (kNoSite: none).
  std::uint32_t site = kNoSite;

 private:
  void wait() override;

  std::weak_ptr<Device> device_;
  std::int64_t* cell_;
};

class Device : public std::enable_shared_from_this<Device> {
 public:
  explicit Device(const BackendOptions& options);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Pool memory (stream-ordered on the GPU). Past the limit (--max-memory) a cvl::Error before
  // anything is allocated; out of device memory below it a DeviceError naming the bytes.
  void* allocate(std::size_t bytes);
  void release(void* pointer, std::size_t bytes) noexcept;

  void copy_to_device(void* device, const void* host, std::size_t bytes);
  // One synchronization (counted): copies `bytes` of device data to the host with everything
  // pending on the boards, waits, resolves every pending count, then raises the first fault.
  void copy_to_host(void* host, const void* device, std::size_t bytes);
  // A wait and a copy that leave the boards alone: for the messages of faults themselves.
  void read_unchecked(void* host, const void* device, std::size_t bytes);
  void copy_on_device(void* to, const void* from, std::size_t bytes);
  void fill_bytes(void* device, int byte, std::size_t bytes);

  // Waits for all queued work, counts it, resolves the pending counts and raises the first
  // pending fault (copy_to_host without data).
  void synchronize();

  // Small device data that comes back with every synchronization, in the same wait: `riders`
  // names it just before the wait, and each rider's `arrived` gets its bytes after it (once the
  // counts are resolved). Residency's small device vectors ride so, to go on on the host.
  struct Rider {
    const void* device = nullptr;
    std::size_t bytes = 0;
    std::function<void(const std::byte*)> arrived;
  };
  void set_riders(std::function<std::vector<Rider>()> riders) { riders_ = std::move(riders); }
  // Waits for all queued work and reads nothing back (not counted as a host sync): for timing.
  void wait_idle();

  // The device's own clock (--trace-json): mark_time(k) queues timestamp k in the stream (0 is
  // the origin); after wait_idle(), seconds_from_origin(k) reads it. The emulation has none.
  static constexpr bool has_clock = CVL_CUDA_REAL;
  static constexpr int kClockMarks = 3;
  void mark_time(int mark);
  double seconds_from_origin(int mark);

  // A new pending count with host bound `bound` (PendingCount::kUnbounded: none); the work that
  // computes it writes its cell. When the board is full, a synchronization frees it first. With
  // speculation allowed, a count with no bound gets a guessed one (speculative_bound()).
  std::shared_ptr<DeviceCount> new_count(std::size_t bound);

  // Speculation (cvl::Speculation::allow_speculation): a synchronization that finds a guessed bound
  // too small drops the faults and counts since the last one and throws SpeculationFailed.
  void allow_speculation(bool allowed) { speculation_allowed_ = allowed; }
  // The instruction whose operations come next: new counts and fault words belong to it.
  void operation_site(std::uint32_t site) { site_ = site; }
  bool settled() const { return guesses_ == 0; }
  void mark_certain_point() { history_at_certain_point_ = guesses_history_; }
  // Treats the outstanding guesses as failed (SpeculationFailed), when memory runs out while
  // buffers were sized by guesses; returns when there are none.
  void give_up_guesses();
  // An allocation of `n` elements: a site's first guess is the largest length met.
  void note_count(std::size_t n) { guesses_history_.record(speculation::LengthGuesses::kNoSite, n); }

  // Runs body(i) for every i < extent.items(): one grid-stride kernel sized for extent.bound, or
  // a loop in the emulation. `traffic` is what it reads and writes.
  template <class Body>
  void launch(Extent extent, const Body& body, Traffic traffic) {
    if (extent.bound == 0) return;
    ++stats_.kernel_launches;
#if CVL_CUDA_REAL
    count_traffic(traffic.over(extent.bound));
    std::size_t blocks = (extent.bound + cuda_tuning::kBlockSize - 1) / cuda_tuning::kBlockSize;
    if (blocks > cuda_tuning::kMaxBlocks) blocks = cuda_tuning::kMaxBlocks;
    grid_stride_kernel<<<static_cast<unsigned>(blocks), cuda_tuning::kBlockSize, 0, stream_>>>(
        extent, body);
    CVL_CUDA_CHECK(cudaGetLastError());
#else
    queue_.enqueue([extent, body, traffic, moved = &bytes_moved_] {
      const std::size_t n = extent.items();
      for (std::size_t i = 0; i < n; ++i) body(i);
      moved->fetch_add(traffic.over(n), std::memory_order_relaxed);
    });
#endif
  }
  template <class Body>
  void launch(std::size_t n, const Body& body, Traffic traffic) {
    launch(Extent{n, nullptr}, body, traffic);
  }
  // Runs body(phase, i) for every i < extent.items() in each phase 0 .. Body::kPhases - 1, one
  // phase finished everywhere before the next begins: one cooperative kernel with a grid-wide
  // barrier between phases (a grid no larger than the device holds at once, striding), or one
  // loop per phase in the emulation. A device without cooperative launches takes one kernel per
  // phase, each counted. `traffic` is what all the phases read and write together.
  template <class Body>
  void launch_phases(Extent extent, const Body& body, Traffic traffic) {
    if (extent.bound == 0) return;
#if CVL_CUDA_REAL
    const std::size_t resident = resident_blocks(
        reinterpret_cast<const void*>(&phased_grid_stride_kernel<Body>));
    if (resident == 0) {
      for (int phase = 0; phase < Body::kPhases; ++phase)
        launch(extent, OnePhase<Body>{body, phase}, phase == 0 ? traffic : Traffic{});
      return;
    }
    ++stats_.kernel_launches;
    count_traffic(traffic.over(extent.bound));
    std::size_t blocks = (extent.bound + cuda_tuning::kBlockSize - 1) / cuda_tuning::kBlockSize;
    if (blocks > resident) blocks = resident;
    Extent extent_argument = extent;
    Body body_argument = body;
    void* arguments[] = {&extent_argument, &body_argument};
    CVL_CUDA_CHECK(cudaLaunchCooperativeKernel(
        reinterpret_cast<const void*>(&phased_grid_stride_kernel<Body>),
        dim3(static_cast<unsigned>(blocks)), dim3(cuda_tuning::kBlockSize), arguments, 0,
        stream_));
#else
    ++stats_.kernel_launches;
    queue_.enqueue([extent, body, traffic, moved = &bytes_moved_] {
      const std::size_t n = extent.items();
      for (int phase = 0; phase < Body::kPhases; ++phase)
        for (std::size_t i = 0; i < n; ++i) body(phase, i);
      moved->fetch_add(traffic.over(n), std::memory_order_relaxed);
    });
#endif
  }
  // Runs a tiled phased body: in each phase p < Body::kPhases, one phase finished everywhere before
  // the next begins, each tile t < body.tiles(p) is taken by one block of cuda_tuning::kBlockSize
  // threads (lanes), which runs body(p, step, t, lane, scratch) for step < Body::steps(p), every
  // lane through one step before any begins the next; `scratch` is the block's (TileScratch). For
  // work that needs a block's lanes together (a block-wide scan) between grid-wide steps: one
  // cooperative kernel sized for the most tiles of any phase (`tiles`), or nested loops in the
  // emulation. A device without cooperative launches takes one kernel per phase, each counted.
  // `traffic` is what all the phases read and write together, over `tiles` items.
  template <class Body>
  void launch_tiles(std::size_t tiles, const Body& body, Traffic traffic) {
    if (tiles == 0) return;
#if CVL_CUDA_REAL
    count_traffic(traffic.over(tiles));
    const std::size_t resident =
        resident_blocks(reinterpret_cast<const void*>(&tiled_phases_kernel<Body>));
    if (resident == 0) {
      const auto blocks = static_cast<unsigned>(std::min<std::size_t>(tiles, cuda_tuning::kMaxBlocks));
      for (int phase = 0; phase < Body::kPhases; ++phase) {
        ++stats_.kernel_launches;
        tiled_one_phase_kernel<<<blocks, cuda_tuning::kBlockSize, 0, stream_>>>(body, phase);
        CVL_CUDA_CHECK(cudaGetLastError());
      }
      return;
    }
    ++stats_.kernel_launches;
    Body body_argument = body;
    void* arguments[] = {&body_argument};
    CVL_CUDA_CHECK(cudaLaunchCooperativeKernel(
        reinterpret_cast<const void*>(&tiled_phases_kernel<Body>),
        dim3(static_cast<unsigned>(std::min(tiles, resident))), dim3(cuda_tuning::kBlockSize),
        arguments, 0, stream_));
#else
    ++stats_.kernel_launches;
    queue_.enqueue([tiles, body, traffic, moved = &bytes_moved_] {
      TileScratch scratch{};
      for (int phase = 0; phase < Body::kPhases; ++phase)
        for (std::size_t tile = 0; tile < body.tiles(phase); ++tile)
          for (int step = 0; step < Body::steps(phase); ++step)
            for (unsigned lane = 0; lane < cuda_tuning::kBlockSize; ++lane)
              body(phase, step, tile, lane, scratch);
      moved->fetch_add(traffic.over(tiles), std::memory_order_relaxed);
    });
#endif
  }
  // A Thrust/CUB call counts as one launch (most are one to three kernels) that reads and writes
  // `bytes` in all its passes.
  void count_library_call(std::uint64_t bytes) {
    ++stats_.kernel_launches;
    count_traffic(bytes);
  }
#if !CVL_CUDA_REAL
  // Queues host code that stands for device work (a Thrust call over the CPP system), in stream
  // order with the launches and copies.
  void enqueue(std::function<void()> work) { queue_.enqueue(std::move(work)); }
#endif

  // A fault word for one operation that may fault on data, open until the handle is dropped.
  // `message` turns the first faulting position into the error text (it may read device data: it
  // runs after a synchronization).
  FaultWord fault_word(std::function<std::string(std::uint64_t)> message);
  bool sync_each_op() const { return sync_each_op_; }

  BackendStats stats() const {
    BackendStats s = stats_;
    s.device_bytes_moved = bytes_moved_.load(std::memory_order_relaxed);
    return s;
  }
  std::uint64_t host_syncs() const { return stats_.host_syncs; }
  // The most device bytes in use at once since the last call (cvl::VectorMemory).
  std::uint64_t take_peak_bytes() {
    const std::uint64_t peak = std::max(interval_peak_, stats_.device_bytes_in_use);
    interval_peak_ = stats_.device_bytes_in_use;
    return peak;
  }
  void count_to_device(std::size_t bytes) { stats_.bytes_to_device += bytes; }

#if CVL_CUDA_REAL
  cudaStream_t stream() const { return stream_; }
  int id() const { return device_; }
  // How many blocks of cuda_tuning::kBlockSize threads of `kernel` the device holds at once: the
  // largest cooperative grid (0: the device has no cooperative launches). Asked once per kernel.
  std::size_t resident_blocks(const void* kernel);
#endif

 private:
  friend class FaultWord;
  // A fault word's message, the instruction it belongs to (kNoSite: not told), which word it is
  // (FaultWord's serial) and whether its operation may still queue the kernel that writes it.
  struct PendingFault {
    std::function<std::string(std::uint64_t)> message;
    std::uint32_t site;
    std::uint64_t serial;
    bool open;
  };
  void close_fault(std::uint64_t serial) noexcept;
  // Waits for the stream after queueing the copy of `bytes` of data and of the used parts of
  // the boards (the fault words too when `with_faults`); resolves the counts, clears the boards,
  // and returns the fault words read.
  std::vector<unsigned long long> read_back(void* host, const void* device, std::size_t bytes,
                                            bool with_faults);
  // Raises the first fault among `words` (from read_back), in program order.
  void raise_first_fault(const std::vector<unsigned long long>& words,
                         const std::vector<PendingFault>& faults);

  void count_traffic(std::uint64_t bytes) { bytes_moved_.fetch_add(bytes, std::memory_order_relaxed); }
  // A fill counted as a device copy, its bytes not as traffic: for a synchronization's own work
  // (clearing the fault board; the riders' staging launch counts none either), which belongs to
  // no operation.
  void queue_fill(void* device, int byte, std::size_t bytes);
  void clear_fault_words();

  BackendStats stats_;
  // BackendStats::device_bytes_moved, apart: the emulation's worker thread adds to it as it runs
  // the launches (--emulate-async).
  std::atomic<std::uint64_t> bytes_moved_{0};
  std::uint64_t interval_peak_ = 0;  // take_peak_bytes: the most in use since its last call
  bool sync_each_op_ = false;
  std::uint64_t memory_limit_ = 0;  // bytes of device memory allocate() may hold (--max-memory)
  // The boards, one device allocation: kFaultSlots fault words (all ones when clear), then
  // kCountSlots count cells; `board_copy_` is the host buffer a synchronization reads them into.
  unsigned long long* fault_words_ = nullptr;
  std::int64_t* count_cells_ = nullptr;
  void* board_copy_ = nullptr;
  std::vector<PendingFault> pending_faults_;
  std::uint64_t fault_serials_ = 0;
  std::vector<std::shared_ptr<DeviceCount>> pending_counts_;
  std::function<std::vector<Rider>()> riders_;
  // The riders' bytes, back to back in one device buffer (one launch per 32 riders), and the
  // host side of their copy (pinned on the GPU), grown as needed.
  DeviceBuffer stage_riders(const std::vector<Rider>& riders, std::size_t bytes);
  std::byte* rider_copy(std::size_t bytes);
  std::byte* rider_copy_ = nullptr;
  std::size_t rider_copy_bytes_ = 0;
  // Speculation: whether a count with no bound may be guessed, the instruction making counts now,
  // what the guesses follow, and the guesses not yet checked by a synchronization.
  bool speculation_allowed_ = false;
  std::uint32_t site_ = speculation::LengthGuesses::kNoSite;
  speculation::LengthGuesses guesses_history_;
  speculation::LengthGuesses history_at_certain_point_;  // restored when a guess fails
  std::size_t guesses_ = 0;
  bool giving_up_guesses_ = false;  // the next synchronization fails the guesses
#if CVL_CUDA_REAL
  int device_ = 0;
  int multiprocessors_ = 0;
  bool cooperative_launch_ = false;
  std::unordered_map<const void*, std::size_t> resident_blocks_;  // by kernel
  cudaStream_t stream_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
  cudaEvent_t clock_marks_[kClockMarks] = {};  // made at first use
#else
  EmulatedStream queue_;
  // A test hook (NESL_EMULATE_ASYNC_DROP_WAIT=riders): a synchronization reads the small vectors
  // riding back before their copy is waited for, the mistake --emulate-async exists to catch.
  bool drop_rider_wait_ = false;
#endif
};

// Pool memory owned by a handle; returned to the pool (stream-ordered) when the handle dies.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::shared_ptr<Device> device, std::size_t bytes)
      : device_(std::move(device)), bytes_(bytes) {
    if (bytes_ > 0) pointer_ = device_->allocate(bytes_);
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = std::move(other.device_);
      pointer_ = other.pointer_;
      bytes_ = other.bytes_;
      other.pointer_ = nullptr;
      other.bytes_ = 0;
    }
    return *this;
  }
  void reset() noexcept {
    if (pointer_) device_->release(pointer_, bytes_);
    pointer_ = nullptr;
    bytes_ = 0;
  }
  bool allocated() const { return device_ != nullptr; }  // also true for a 0-byte buffer
  void* get() const { return pointer_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(pointer_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<Device> device_;
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

// A non-owning pointer for scratch buffers that cannot outlive the operation using them.
inline std::shared_ptr<Device> borrow(Device& device) {
  return std::shared_ptr<Device>(std::shared_ptr<Device>{}, &device);
}

}  // namespace cvl::CVL_CUDA_NS
