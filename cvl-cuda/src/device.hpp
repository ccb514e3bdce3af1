// The device runtime of one backend: the stream, the stream-ordered memory pool, host<->device
// copies, the launch helper, the deferred fault board and the counters behind BackendStats.
// The emulation implements the same class over host memory, so the rest of the library cannot
// tell the difference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cvl/backend.hpp"
#include "platform.hpp"
#include "tuning.hpp"
#if CVL_CUDA_REAL
#include "check.hpp"
#endif

namespace cvl::CVL_CUDA_NS {

#if CVL_CUDA_REAL
// The one kernel shape of the library: a grid-stride loop calling body(i) for i < n.
template <class Body>
CVL_GLOBAL void grid_stride_kernel(std::size_t n, Body body) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    body(i);
}
#endif

class Device {
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
  // Waits for the stream (a host synchronization, counted) and then checks the fault board.
  void copy_to_host(void* host, const void* device, std::size_t bytes);
  // The same without the fault check: for the messages of faults themselves.
  void read_unchecked(void* host, const void* device, std::size_t bytes);
  void copy_on_device(void* to, const void* from, std::size_t bytes);
  void fill_bytes(void* device, int byte, std::size_t bytes);

  // Waits for all queued work, counts it, and raises the first pending fault.
  void synchronize();

  // Runs body(i) for every i < n: one grid-stride kernel, or a loop in the emulation.
  template <class Body>
  void launch(std::size_t n, const Body& body) {
    if (n == 0) return;
    ++stats_.kernel_launches;
#if CVL_CUDA_REAL
    std::size_t blocks = (n + cuda_tuning::kBlockSize - 1) / cuda_tuning::kBlockSize;
    if (blocks > cuda_tuning::kMaxBlocks) blocks = cuda_tuning::kMaxBlocks;
    grid_stride_kernel<<<static_cast<unsigned>(blocks), cuda_tuning::kBlockSize, 0, stream_>>>(
        n, body);
    CVL_CUDA_CHECK(cudaGetLastError());
#else
    for (std::size_t i = 0; i < n; ++i) body(i);
#endif
  }
  // A Thrust/CUB call counts as one launch (most are one to three kernels).
  void count_library_call() { ++stats_.kernel_launches; }

  // A fault word for one operation that may fault on data. `message` turns the first faulting
  // position into the error text (it may read device data: it runs after a synchronization).
  unsigned long long* fault_word(std::function<std::string(std::uint64_t)> message);
  bool sync_each_op() const { return sync_each_op_; }

  BackendStats stats() const { return stats_; }
  void count_to_device(std::size_t bytes) { stats_.bytes_to_device += bytes; }

#if CVL_CUDA_REAL
  cudaStream_t stream() const { return stream_; }
  int id() const { return device_; }
#endif

 private:
  void check_faults();

  BackendStats stats_;
  bool sync_each_op_ = false;
  std::uint64_t memory_limit_ = 0;  // bytes of device memory allocate() may hold (--max-memory)
  // The fault board: kFaultSlots words on the device, all ones when clear.
  unsigned long long* fault_words_ = nullptr;
  std::vector<std::function<std::string(std::uint64_t)>> pending_faults_;
#if CVL_CUDA_REAL
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
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
