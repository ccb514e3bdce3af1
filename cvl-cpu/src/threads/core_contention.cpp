#include "threads/core_contention.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>

namespace cvl::cpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kWindow{20};
constexpr double kContendedShare = 0.2;

// The calling thread's run delay in nanoseconds (the second field of schedstat), or -1.
std::int64_t run_delay_ns() {
  const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[128];
  const ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return -1;
  text[got] = '\0';
  unsigned long long on_cpu = 0, waiting = 0;
  if (std::sscanf(text, "%llu %llu", &on_cpu, &waiting) != 2) return -1;
  return static_cast<std::int64_t>(waiting);
}

class Contention {
 public:
  bool contended() {
    const Clock::time_point now = Clock::now();
    if (now < next_.load(std::memory_order_relaxed)) return contended_.load(std::memory_order_relaxed);
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || unavailable_) return contended_.load(std::memory_order_relaxed);
    const std::int64_t delay = run_delay_ns();
    if (delay < 0) {
      unavailable_ = true;
      contended_.store(false, std::memory_order_relaxed);
      next_.store(Clock::time_point::max(), std::memory_order_relaxed);
      return false;
    }
    // A window counts only when one thread measured both ends (run delays are per thread).
    if (thread_ == std::this_thread::get_id()) {
      const double waited = static_cast<double>(delay - delay_) * 1e-9;
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      contended_.store(waited > kContendedShare * elapsed, std::memory_order_relaxed);
    }
    thread_ = std::this_thread::get_id();
    start_ = now;
    delay_ = delay;
    next_.store(now + kWindow, std::memory_order_relaxed);
    return contended_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<Clock::time_point> next_{Clock::time_point{}};
  std::atomic<bool> contended_{false};
  std::mutex mutex_;  // guards the rest
  bool unavailable_ = false;
  std::thread::id thread_{};
  Clock::time_point start_{};
  std::int64_t delay_ = 0;
};

}  // namespace

bool cores_contended() {
  static Contention* const instance = new Contention;  // never destroyed, like the pool
  return instance->contended();
}

}  // namespace cvl::cpu
