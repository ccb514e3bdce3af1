// The emulation's stream (emulated_stream.hpp).
#include "emulated_stream.hpp"

#include <sys/prctl.h>

namespace cvl::cuda_emulated {

EmulatedStream::EmulatedStream(std::uint64_t seed) : seed_(seed), delays_(seed) {
  if (asynchronous()) worker_ = std::thread([this] { run_items(); });
}

EmulatedStream::~EmulatedStream() {
  if (!asynchronous()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  worker_.join();
}

// Half the items start as soon as the worker reaches them; most others a few microseconds
// later, so that the host usually runs ahead by an item or more; one in sixteen up to half a
// millisecond later, long enough for the host to finish whatever it does before its next wait.
std::chrono::microseconds EmulatedStream::next_delay() {
  const std::uint64_t draw = delays_();
  const std::uint64_t kind = draw & 15;
  const std::uint64_t amount = draw >> 4;
  if (kind < 8) return std::chrono::microseconds(0);
  if (kind < 15) return std::chrono::microseconds(1 + amount % 30);
  return std::chrono::microseconds(30 + amount % 470);
}

std::uint64_t EmulatedStream::enqueue(std::function<void()> work) {
  ++queued_;
  if (!asynchronous()) {
    work();
    return queued_;
  }
  const auto start = std::chrono::steady_clock::now() + next_delay();
  {
    std::lock_guard lock(mutex_);
    items_.push_back({std::move(work), start});
  }
  work_ready_.notify_one();
  return queued_;
}

void EmulatedStream::run_items() {
  // Sleeps of a few microseconds, not the default 50 us of timer slack added to each.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [this] { return stopping_ || !items_.empty(); });
      if (items_.empty()) return;  // stopping, and nothing is left
      item = std::move(items_.front());
      items_.pop_front();
    }
    std::this_thread::sleep_until(item.start);
    std::exception_ptr failed;
    try {
      item.work();
    } catch (...) {
      failed = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      if (failed && !failure_) failure_ = failed;
      ++finished_;
    }
    work_done_.notify_all();
  }
}

void EmulatedStream::wait(std::uint64_t position) {
  if (!asynchronous()) return;
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, [&] { return finished_ >= position; });
  if (failure_) {
    std::exception_ptr failure = failure_;
    failure_ = nullptr;
    lock.unlock();
    std::rethrow_exception(failure);
  }
}

}  // namespace cvl::cuda_emulated
