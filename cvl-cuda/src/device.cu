// The device runtime (device.hpp): CUDA stream and memory pool, or their host emulation.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "cvl/memory_limit.hpp"
#include "device.hpp"

namespace cvl::CVL_CUDA_NS {

namespace {

[[noreturn]] void out_of_memory(std::size_t bytes) {
  throw DeviceError("out of device memory: " + std::to_string(bytes) + " bytes requested");
}

constexpr unsigned long long kNoFault = ~0ull;

}  // namespace

Device::Device(const BackendOptions& options)
    : sync_each_op_(options.sync_each_op), memory_limit_(options.max_memory) {
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
#endif
  fault_words_ =
      static_cast<unsigned long long*>(allocate(cuda_tuning::kFaultSlots * sizeof(*fault_words_)));
  fill_bytes(fault_words_, 0xFF, cuda_tuning::kFaultSlots * sizeof(*fault_words_));
}

Device::~Device() {
  release(fault_words_, cuda_tuning::kFaultSlots * sizeof(*fault_words_));
#if CVL_CUDA_REAL
  // Destruction must not throw: a failing call here has nothing left to report to.
  cudaStreamSynchronize(stream_);
  cudaMemPoolDestroy(pool_);
  cudaStreamDestroy(stream_);
#endif
}

void* Device::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  // --max-memory: refused before the pool is asked, as the program's error (not a device failure).
  if (bytes > memory_limit_ || stats_.device_bytes_in_use > memory_limit_ - bytes)
    throw_memory_limit(bytes, stats_.device_bytes_in_use, memory_limit_);
  void* pointer = nullptr;
#if CVL_CUDA_REAL
  cudaError_t status = cudaMallocFromPoolAsync(&pointer, bytes, pool_, stream_);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free error state
    out_of_memory(bytes);
  }
  CVL_CUDA_CHECK(status);
#else
  pointer = ::operator new (bytes, std::align_val_t{256}, std::nothrow);
  if (!pointer) out_of_memory(bytes);
#endif
  stats_.device_bytes_in_use += bytes;
  if (stats_.device_bytes_in_use > stats_.device_bytes_peak)
    stats_.device_bytes_peak = stats_.device_bytes_in_use;
  return pointer;
}

void Device::release(void* pointer, std::size_t bytes) noexcept {
  if (!pointer) return;
#if CVL_CUDA_REAL
  cudaFreeAsync(pointer, stream_);  // stream-ordered: later work reuses it without a sync
#else
  ::operator delete (pointer, std::align_val_t{256});
#endif
  stats_.device_bytes_in_use -= bytes;
}

void Device::copy_to_device(void* device, const void* host, std::size_t bytes) {
  if (bytes == 0) return;
  stats_.bytes_to_device += bytes;
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_));
  // A pageable source is staged before the call returns, so the caller may free it right away.
#else
  std::memcpy(device, host, bytes);
#endif
}

void Device::copy_to_host(void* host, const void* device, std::size_t bytes) {
  read_unchecked(host, device, bytes);
  check_faults();
}

void Device::read_unchecked(void* host, const void* device, std::size_t bytes) {
  stats_.bytes_to_host += bytes;
  ++stats_.host_syncs;
#if CVL_CUDA_REAL
  if (bytes > 0)
    CVL_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_));
  CVL_CUDA_CHECK(cudaStreamSynchronize(stream_));
#else
  if (bytes > 0) std::memcpy(host, device, bytes);
#endif
}

void Device::copy_on_device(void* to, const void* from, std::size_t bytes) {
  if (bytes == 0) return;
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream_));
#else
  std::memmove(to, from, bytes);
#endif
}

void Device::fill_bytes(void* device, int byte, std::size_t bytes) {
  if (bytes == 0) return;
#if CVL_CUDA_REAL
  CVL_CUDA_CHECK(cudaMemsetAsync(device, byte, bytes, stream_));
#else
  std::memset(device, byte, bytes);
#endif
}

void Device::synchronize() {
  if (pending_faults_.empty()) {
    ++stats_.host_syncs;
#if CVL_CUDA_REAL
    CVL_CUDA_CHECK(cudaStreamSynchronize(stream_));
#endif
    return;
  }
  check_faults();
}

unsigned long long* Device::fault_word(std::function<std::string(std::uint64_t)> message) {
  if (pending_faults_.size() == cuda_tuning::kFaultSlots) check_faults();
  pending_faults_.push_back(std::move(message));
  return fault_words_ + (pending_faults_.size() - 1);
}

// One copy of the used fault words (a synchronization); the first operation, in program order,
// that faulted raises its error. The board is cleared either way.
void Device::check_faults() {
  if (pending_faults_.empty()) return;
  const std::size_t used = pending_faults_.size();
  std::vector<unsigned long long> words(used);
  read_unchecked(words.data(), fault_words_, used * sizeof(unsigned long long));
  auto pending = std::move(pending_faults_);
  pending_faults_.clear();
  fill_bytes(fault_words_, 0xFF, used * sizeof(unsigned long long));
  // Without sync_each_op the error surfaces at a later operation, so the message says so.
  const char* late = sync_each_op_ ? ""
                                   : " (found at a later synchronization; --sync reports a fault "
                                     "at its instruction)";
  for (std::size_t i = 0; i < used; ++i)
    if (words[i] != kNoFault) throw Error(pending[i](words[i]) + late);
}

}  // namespace cvl::CVL_CUDA_NS
