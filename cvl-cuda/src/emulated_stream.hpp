// The emulation's stream: the device work of cuda-emulated (launches, library calls, copies,
// fills, frees) in the order it was queued.
//
// Immediate (seed 0): each item runs as it is queued, on the caller's thread: the device is never
// behind the host, so an ordering mistake cannot show.
//
// Asynchronous (`vinterp --emulate-async SEED`): a worker thread of its own runs the items in
// order, each no sooner than a pseudo-random delay after it was queued (the delays drawn from
// SEED), as a GPU runs a stream while the host goes on. The host sees device data only after
// wait(): anything it reads earlier may not have been written yet. An exception thrown by an item
// is raised by the next wait(), as a GPU reports an asynchronous failure at the next
// synchronization.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

namespace cvl::cuda_emulated {

class EmulatedStream {
 public:
  explicit EmulatedStream(std::uint64_t seed);
  ~EmulatedStream();  // every queued item runs first
  EmulatedStream(const EmulatedStream&) = delete;
  EmulatedStream& operator=(const EmulatedStream&) = delete;

  bool asynchronous() const { return seed_ != 0; }

  // Queues `work`; returns its position in the stream (1 for the first item).
  std::uint64_t enqueue(std::function<void()> work);
  // Returns once the items up to `position` have run; then raises the first exception an item
  // threw, if any (once).
  void wait(std::uint64_t position);
  void wait() { wait(queued_); }
  std::uint64_t queued() const { return queued_; }

 private:
  struct Item {
    std::function<void()> work;
    std::chrono::steady_clock::time_point start;  // not before
  };
  std::chrono::microseconds next_delay();
  void run_items();

  const std::uint64_t seed_;
  std::mt19937_64 delays_;
  std::uint64_t queued_ = 0;  // items queued so far (the host's count)

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::deque<Item> items_;
  std::uint64_t finished_ = 0;  // items run so far
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace cvl::cuda_emulated
