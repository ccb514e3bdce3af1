// The device runtime (device.hpp): CUDA stream and memory pool, or their host emulation.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "cvl/memory_limit.hpp"
#include "device.hpp"

namespace cvl::CVL_CUDA_NS {

namespace {

[[noreturn]] void out_of_memory(std::size_t bytes) {
  throw DeviceError("out of device memory: " + std::to_string(bytes) + " bytes requested");
}

constexpr unsigned long long kNoFault = ~0ull;
#if !CVL_CUDA_REAL
// What new device memory and new pinned host buffers hold under --emulate-async: as an INT,
// -1515870811, outside any segment and any sensible count, so a read that comes too early shows.
constexpr int kPoisonByte = 0xA5;
#endif
constexpr std::size_t kFaultBytes = cuda_tuning::kFaultSlots * sizeof(unsigned long long);
constexpr std::size_t kBoardBytes = kFaultBytes + cuda_tuning::kCountSlots * sizeof(std::int64_t);

// Copies up to kRidersPerLaunch riders' bytes, back to back, into one staging buffer: one launch
// per synchronization brings every small vector back in the same copy as the rest.
constexpr std::size_t kRidersPerLaunch = 32;
struct GatherRiders {
  const std::byte* from[kRidersPerLaunch] = {};
  std::size_t end[kRidersPerLaunch] = {};  // where each rider's bytes end in `to`
  std::byte* to = nullptr;
  CVL_HD void operator()(std::size_t i) const {
    std::size_t r = 0;
    while (end[r] <= i) ++r;
    to[i] = from[r][i - (r == 0 ? 0 : end[r - 1])];
  }
};

}  // namespace

void DeviceCount::wait() {
  const std::shared_ptr<Device> device = device_.lock();
  if (!device) throw InternalError("a pending count outlived its backend");
  device->synchronize();
}

Device::Device(const BackendOptions& options)
    : sync_each_op_(options.sync_each_op),
      memory_limit_(options.max_memory)
#if !CVL_CUDA_REAL
      ,
      queue_(options.emulate_async_seed)
#endif
{
#if CVL_CUDA_REAL
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
    throw DeviceError(std::string("no CUDA device: ") + cudaGetErrorString(status));
  if (count == 0) throw DeviceError("no CUDA device: the CUDA runtime found none");
  if (options.device < 0 || options.device >= count)
    throw DeviceError("no CUDA device " + std::to_string(options.device) +
                      ": this machine has " + std::to_string(count));
  device_ = options.device;
  CVL_CUDA_CHECK(cudaSetDevice(device_));
  CVL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  int cooperative = 0;
  CVL_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device_));
  cooperative_launch_ = cooperative != 0;
  CVL_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_;
  CVL_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  unsigned long long threshold = cuda_tuning::kPoolReleaseThreshold;
  CVL_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold));
  if (memory_limit_ == 0) {  // default: the device's memory (the pool refuses past it anyway)
    std::size_t free_bytes = 0, total_bytes = 0;
    CVL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    memory_limit_ = total_bytes;
  }
#else
  if (memory_limit_ == 0) memory_limit_ = default_host_memory_limit();
  const char* drop_wait = std::getenv("NESL_EMULATE_ASYNC_DROP_WAIT");
  drop_rider_wait_ = drop_wait && std::string(drop_wait) == "riders";
#endif
  fault_words_ = static_cast<unsigned long long*>(allocate(kBoardBytes));
  count_cells_ = reinterpret_cast<std::int64_t*>(fault_words_ + cuda_tuning::kFaultSlots);
  clear_fault_words();
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMallocHost(&board_copy_, kBoardBytes));  // pinned: the copy is a DMA
#else
  board_copy_ = ::operator new(kBoardBytes);
  if (queue_.asynchronous()) std::memset(board_copy_, kPoisonByte, kBoardBytes);
#endif
}

Device::~Device() {
  release(fault_words_, kBoardBytes);
#if CVL_CUDA_REAL
  // Destruction must not throw: a failing call here has nothing left to report to.
  cudaStreamSynchronize(stream_);
  for (cudaEvent_t mark : clock_marks_)
    if (mark) cudaEventDestroy(mark);
  cudaFreeHost(board_copy_);
  if (rider_copy_) cudaFreeHost(rider_copy_);
  cudaMemPoolDestroy(pool_);
  cudaStreamDestroy(stream_);
#else
  try {
    queue_.wait();  // the frees queued last, and nothing writes the host buffers any more
  } catch (...) {
  }
  ::operator delete(board_copy_);
  ::operator delete(rider_copy_);
#endif
}

std::byte* Device::rider_copy(std::size_t bytes) {
  if (bytes <= rider_copy_bytes_) return rider_copy_;
  const std::size_t grown = std::max(bytes, 2 * rider_copy_bytes_);
#if CVL_CUDA_REAL
  if (rider_copy_) CVL_CUDA_CHECK(cudaFreeHost(rider_copy_));
  rider_copy_ = nullptr;
  rider_copy_bytes_ = 0;
  void* pinned = nullptr;
  CVL_CUDA_CHECK(cudaMallocHost(&pinned, grown));  // pinned: the copy is a DMA
  rider_copy_ = static_cast<std::byte*>(pinned);
#else
  ::operator delete(rider_copy_);
  rider_copy_ = static_cast<std::byte*>(::operator new(grown));
  if (queue_.asynchronous()) std::memset(rider_copy_, kPoisonByte, grown);
#endif
  rider_copy_bytes_ = grown;
  return rider_copy_;
}

DeviceBuffer Device::stage_riders(const std::vector<Rider>& riders, std::size_t bytes) {
  DeviceBuffer staging(borrow(*this), bytes);
  for (std::size_t first = 0, at = 0; first < riders.size(); first += kRidersPerLaunch) {
    GatherRiders gather;
    gather.to = staging.as<std::byte>() + at;
    std::size_t here = 0;
    for (std::size_t r = 0; r < kRidersPerLaunch && first + r < riders.size(); ++r) {
      gather.from[r] = static_cast<const std::byte*>(riders[first + r].device);
      here += riders[first + r].bytes;
      gather.end[r] = here;
    }
    launch(here, gather, Traffic{});
    at += here;
  }
  return staging;
}

void* Device::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  // --max-memory: refused before the pool is asked, as the program's error (not a device failure).
  if (bytes > memory_limit_ || stats_.device_bytes_in_use > memory_limit_ - bytes) {
    give_up_guesses();  // guessed buffers may be what fills the memory: run again without them
    throw_memory_limit(bytes, stats_.device_bytes_in_use, memory_limit_);
  }
  void* pointer = nullptr;
#if CVL_CUDA_REAL
  cudaError_t status = cudaMallocFromPoolAsync(&pointer, bytes, pool_, stream_);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free error state
    give_up_guesses();
    out_of_memory(bytes);
  }
  CVL_CUDA_CHECK(status);
#else
  pointer = ::operator new (bytes, std::align_val_t{256}, std::nothrow);
  if (!pointer) {
    give_up_guesses();
    out_of_memory(bytes);
  }
  // Not in use by any queued work: its last owner's free has run (release()).
  if (queue_.asynchronous()) std::memset(pointer, kPoisonByte, bytes);
#endif
  stats_.device_bytes_in_use += bytes;
  if (stats_.device_bytes_in_use > stats_.device_bytes_peak)
    stats_.device_bytes_peak = stats_.device_bytes_in_use;
  if (stats_.device_bytes_in_use > interval_peak_) interval_peak_ = stats_.device_bytes_in_use;
  return pointer;
}

void Device::release(void* pointer, std::size_t bytes) noexcept {
  if (!pointer) return;
#if CVL_CUDA_REAL
  cudaFreeAsync(pointer, stream_);  // stream-ordered: later work reuses it without a sync
#else
  // Stream-ordered, as cudaFreeAsync: the work queued before it may still read the memory.
  queue_.enqueue([pointer] { ::operator delete (pointer, std::align_val_t{256}); });
#endif
  stats_.device_bytes_in_use -= bytes;
}

void Device::copy_to_device(void* device, const void* host, std::size_t bytes) {
  if (bytes == 0) return;
  stats_.bytes_to_device += bytes;
  ++stats_.device_copies;
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_));
  // A pageable source is staged before the call returns, so the caller may free it right away.
#else
  if (!queue_.asynchronous()) {
    std::memcpy(device, host, bytes);
    return;
  }
  // A pageable source is staged now, as the CUDA runtime does: the caller may reuse it at once.
  auto staged = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(host),
                                                        static_cast<const std::byte*>(host) + bytes);
  queue_.enqueue([device, staged] { std::memcpy(device, staged->data(), staged->size()); });
#endif
}

void Device::copy_to_host(void* host, const void* device, std::size_t bytes) {
  const bool faults = !pending_faults_.empty();
  std::vector<PendingFault> messages = std::move(pending_faults_);
  pending_faults_.clear();
  raise_first_fault(read_back(host, device, bytes, faults), messages);
  // An open word's kernel may still be queued after this: the word keeps its slot, and so do the
  // ones before it (read and cleared now, nothing writes them again).
  while (!messages.empty() && !messages.back().open) messages.pop_back();
  pending_faults_ = std::move(messages);
}

void Device::read_unchecked(void* host, const void* device, std::size_t bytes) {
  stats_.bytes_to_host += bytes;
  ++stats_.host_syncs;
#if CVL_CUDA_REAL
  if (bytes > 0)
    CVL_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_));
  CVL_CUDA_CHECK(cudaStreamSynchronize(stream_));
#else
  if (bytes > 0) queue_.enqueue([host, device, bytes] { std::memcpy(host, device, bytes); });
  queue_.wait();
#endif
}

std::vector<unsigned long long> Device::read_back(void* host, const void* device,
                                                  std::size_t bytes, bool with_faults) {
  const std::size_t faults = with_faults ? cuda_tuning::kFaultSlots : 0;
  const std::size_t counts = pending_counts_.size();
  // Fault words and count cells are adjacent: one copy covers what is in use.
  const std::size_t board_bytes =
      counts > 0 ? kFaultBytes + counts * sizeof(std::int64_t) : faults * sizeof(unsigned long long);
  std::vector<Rider> riders = riders_ ? riders_() : std::vector<Rider>{};
  std::size_t rider_bytes = 0;
  for (const Rider& r : riders) rider_bytes += r.bytes;
  if (rider_bytes > memory_limit_ - std::min(memory_limit_, stats_.device_bytes_in_use)) {
    riders.clear();  // no room to stage them: they stay on the device
    rider_bytes = 0;
  }
  std::byte* const rider_data = rider_bytes > 0 ? rider_copy(rider_bytes) : nullptr;
  // One rider is copied from where it is: gathering it first would only add a launch.
  const DeviceBuffer staging =
      riders.size() > 1 ? stage_riders(riders, rider_bytes) : DeviceBuffer();
  const void* const rider_source = riders.size() == 1 ? riders[0].device : staging.get();
  stats_.bytes_to_host += bytes + board_bytes + rider_bytes;
  ++stats_.host_syncs;
#if CVL_CUDA_REAL
  if (bytes > 0)
    CVL_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_));
  if (board_bytes > 0)
    CVL_CUDA_CHECK(cudaMemcpyAsync(board_copy_, fault_words_, board_bytes,
                                   cudaMemcpyDeviceToHost, stream_));
  if (rider_bytes > 0)
    CVL_CUDA_CHECK(cudaMemcpyAsync(rider_data, rider_source, rider_bytes,
                                   cudaMemcpyDeviceToHost, stream_));
  CVL_CUDA_CHECK(cudaStreamSynchronize(stream_));
#else
  if (bytes > 0) queue_.enqueue([host, device, bytes] { std::memcpy(host, device, bytes); });
  if (board_bytes > 0)
    queue_.enqueue([this, board_bytes] { std::memcpy(board_copy_, fault_words_, board_bytes); });
  const std::uint64_t data_and_boards = queue_.queued();
  if (rider_bytes > 0)
    queue_.enqueue([rider_data, from = rider_source, rider_bytes] {
      std::memcpy(rider_data, from, rider_bytes);
    });
  queue_.wait(drop_rider_wait_ ? data_and_boards : queue_.queued());
#endif
  const auto* words = static_cast<const unsigned long long*>(board_copy_);
  const auto* cells = reinterpret_cast<const std::int64_t*>(words + cuda_tuning::kFaultSlots);
  bool guesses_held = !giving_up_guesses_;
  giving_up_guesses_ = false;
  for (std::size_t i = 0; i < counts; ++i) {
    const auto count = static_cast<std::size_t>(cells[i] < 0 ? 0 : cells[i]);
    guesses_held = pending_counts_[i]->resolve(count) && guesses_held;
  }
  // The history guesses follow: the counts that held. After a failed guess, the history goes
  // back to the caller's certain point (the region runs again, without guessing, and counts
  // anew), plus the counts that broke their guesses: what the region will need. The other counts
  // of a failed region may come from data cut short.
  if (!guesses_held) guesses_history_ = history_at_certain_point_;
  for (std::size_t i = 0; i < counts; ++i) {
    const DeviceCount& count = *pending_counts_[i];
    const bool broke = count.guessed() && count.bound() > count.guessed_bound();
    if (guesses_held)
      guesses_history_.record(count.site, count.bound());
    else if (broke && count.bound() <= speculation::LengthGuesses::kLongestVector)
      guesses_history_.record(count.site, count.bound(), true);
  }
  if (!guesses_held) history_at_certain_point_ = guesses_history_;
  pending_counts_.clear();
  guesses_ = 0;
  std::vector<unsigned long long> read(words, words + (faults > 0 ? cuda_tuning::kFaultSlots : 0));
  if (!guesses_held) {
    // Everything since the last synchronization is dropped by the caller, faults included: a
    // fault there may come from data that was cut short.
    ++stats_.guesses_failed;
    pending_faults_.clear();
    clear_fault_words();
    throw SpeculationFailed{};
  }
  if (faults > 0) clear_fault_words();
  for (std::size_t i = 0, at = 0; i < riders.size(); at += riders[i].bytes, ++i)
    riders[i].arrived(rider_data + at);
#if !CVL_CUDA_REAL
  if (drop_rider_wait_) queue_.wait();  // late, but before the buffer may be reused
#endif
  return read;
}

void Device::copy_on_device(void* to, const void* from, std::size_t bytes) {
  if (bytes == 0) return;
  ++stats_.device_copies;
  count_traffic(2 * bytes);
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream_));
#else
  queue_.enqueue([to, from, bytes] { std::memmove(to, from, bytes); });
#endif
}

void Device::fill_bytes(void* device, int byte, std::size_t bytes) {
  count_traffic(bytes);
  queue_fill(device, byte, bytes);
}

void Device::clear_fault_words() { queue_fill(fault_words_, 0xFF, kFaultBytes); }

void Device::queue_fill(void* device, int byte, std::size_t bytes) {
  if (bytes == 0) return;
  ++stats_.device_copies;
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMemsetAsync(device, byte, bytes, stream_));
#else
  queue_.enqueue([device, byte, bytes] { std::memset(device, byte, bytes); });
#endif
}

#if CVL_CUDA_REAL
std::size_t Device::resident_blocks(const void* kernel) {
  if (!cooperative_launch_) return 0;
  if (auto known = resident_blocks_.find(kernel); known != resident_blocks_.end())
    return known->second;
  int per_multiprocessor = 0;
  CVL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_multiprocessor, kernel, static_cast<int>(cuda_tuning::kBlockSize), 0));
  const std::size_t blocks =
      per_multiprocessor <= 0 || multiprocessors_ <= 0
          ? 0
          : static_cast<std::size_t>(per_multiprocessor) * static_cast<std::size_t>(multiprocessors_);
  resident_blocks_.emplace(kernel, blocks);
  return blocks;
}
#endif

void Device::synchronize() { copy_to_host(nullptr, nullptr, 0); }

void Device::wait_idle() {
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaStreamSynchronize(stream_));
#else
  queue_.wait();
#endif
}

void Device::mark_time(int mark) {
#if CVL_CUDA_REAL
  if (!clock_marks_[mark]) CVL_CUDA_CHECK(cudaEventCreate(&clock_marks_[mark]));
  CVL_CUDA_CHECK(cudaEventRecord(clock_marks_[mark], stream_));
#else
  (void)mark;
#endif
}

double Device::seconds_from_origin(int mark) {
#if CVL_CUDA_REAL
  float ms = 0;
  CVL_CUDA_CHECK(cudaEventElapsedTime(&ms, clock_marks_[0], clock_marks_[mark]));
  return ms / 1000.0;
#else
  (void)mark;
  return 0.0;
#endif
}

void Device::give_up_guesses() {
  if (guesses_ == 0) return;
  giving_up_guesses_ = true;
  synchronize();  // throws SpeculationFailed
}

std::shared_ptr<DeviceCount> Device::new_count(std::size_t bound) {
  if (pending_counts_.size() == cuda_tuning::kCountSlots) synchronize();
  auto count = std::make_shared<DeviceCount>(weak_from_this(),
                                             count_cells_ + pending_counts_.size(), bound);
  if (bound == PendingCount::kUnbounded) {
    count->site = site_;  // what it counts becomes the site's history, guessed or not
    if (speculation_allowed_) {
      if (const std::size_t guess = guesses_history_.guess(site_, memory_limit_); guess > 0) {
        count->assume_bound(guess);
        ++guesses_;
      }
    }
  }
  pending_counts_.push_back(count);
  return count;
}

FaultWord Device::fault_word(std::function<std::string(std::uint64_t)> message) {
  if (pending_faults_.size() == cuda_tuning::kFaultSlots) synchronize();
  if (pending_faults_.size() == cuda_tuning::kFaultSlots)
    throw InternalError("every fault word is held by an operation in progress");
  const std::uint64_t serial = ++fault_serials_;
  pending_faults_.push_back({std::move(message), site_, serial, true});
  return FaultWord(this, fault_words_ + (pending_faults_.size() - 1), serial);
}

void Device::close_fault(std::uint64_t serial) noexcept {
  // Not found: a failed guess dropped the board while the operation was in progress.
  for (auto fault = pending_faults_.rbegin(); fault != pending_faults_.rend(); ++fault)
    if (fault->serial == serial) {
      fault->open = false;
      return;
    }
}

FaultWord& FaultWord::operator=(FaultWord&& other) noexcept {
  if (this == &other) return *this;
  close();
  device_ = std::exchange(other.device_, nullptr);
  word_ = std::exchange(other.word_, nullptr);
  serial_ = other.serial_;
  return *this;
}

void FaultWord::close() noexcept {
  if (device_) device_->close_fault(serial_);
  device_ = nullptr;
  word_ = nullptr;
}

// The first operation, in program order, that faulted raises its error, naming its instruction
// where the caller told it (a DeferredError), else saying that it was found late.
void Device::raise_first_fault(const std::vector<unsigned long long>& words,
                               const std::vector<PendingFault>& faults) {
  for (std::size_t i = 0; i < faults.size() && i < words.size(); ++i) {
    if (words[i] == kNoFault) continue;
    const std::string message = faults[i].message(words[i]);
    if (faults[i].site != DeviceCount::kNoSite) throw DeferredError(message, faults[i].site);
    if (sync_each_op_) throw Error(message);
    throw Error(message + " (found at a later synchronization; --sync reports a fault at its "
                          "instruction)");
  }
}

}  // namespace cvl::CVL_CUDA_NS
