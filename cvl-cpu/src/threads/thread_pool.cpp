#include "threads/thread_pool.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "threads/core_contention.hpp"

namespace cvl::cpu {
namespace {

// The most tasks a job may have (16 bits of the claim word); a larger job runs on the caller.
constexpr std::size_t kMaxTasks = 0xFFFF;

// Whether this thread is running a task: a call from inside one runs on the caller alone.
thread_local bool in_task = false;

// How long a thread spins before it sleeps: a helper waiting for the next job (cvl-cpu's jobs
// come every few microseconds in a busy stretch of a program, and waking a sleeper costs tens
// of microseconds), and the caller waiting for the last task. Short enough that a spinning
// thread takes little from others when the cores are shared.
constexpr std::chrono::microseconds kHelperSpin{50};
constexpr std::chrono::microseconds kCallerSpin{20};

// When other processes hold the cores, helpers wake late or are descheduled in the middle of a
// task (for milliseconds) while the caller waits: a job "did not pay" when it took more than
// this share of the time the caller alone would have needed (estimated from the caller's own
// tasks). Jobs then run on the caller alone for a while, doubling from the first to the last of
// these as long as the jobs that try helpers again do not pay either.
constexpr double kPayingShare = 0.9;
constexpr std::chrono::milliseconds kAloneFirst{10};
constexpr std::chrono::milliseconds kAloneLongest{1000};

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until done() or `budget` has passed; returns done().
template <class Done>
bool spin_until(Done done, std::chrono::microseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

class Pool {
  using Clock = std::chrono::steady_clock;

 public:
  void run(int helpers, std::size_t tasks, TaskFunction function, void* task) {
    std::unique_lock job(busy_, std::defer_lock);
    if (in_task || helpers <= 0 || tasks < 2 || tasks > kMaxTasks || !job.try_lock() ||
        !helpers_pay()) {
      for (std::size_t i = 0; i < tasks; ++i) function(task, i);
      return;
    }
    const Clock::time_point start = Clock::now();
    hire(helpers);
    function_.store(function, std::memory_order_relaxed);
    task_.store(task, std::memory_order_relaxed);
    helpers_.store(helpers, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    const std::uint32_t id = ++last_job_;
    next_.store(claim_word(id, static_cast<std::uint32_t>(tasks), 0),
                std::memory_order_release);  // opens the job's tasks
    job_.store(id, std::memory_order_release);
    job_.notify_all();  // a system call only when a helper sleeps

    const std::size_t own = work(id);
    const Clock::time_point worked = Clock::now();
    const auto all_done = [&] { return finished_.load(std::memory_order_acquire) == tasks; };
    if (!spin_until(all_done, kCallerSpin))
      for (std::uint32_t seen; (seen = finished_.load(std::memory_order_acquire)) != tasks;)
        finished_.wait(seen, std::memory_order_acquire);
    judge(start, worked, Clock::now(), own, tasks);
    if (failed_.load(std::memory_order_relaxed)) std::rethrow_exception(std::exchange(error_, {}));
  }

 bool helpers_pay() const {
    return !cores_contended() && Clock::now() >= alone_until_.load(std::memory_order_relaxed);
  }

 private:

  // After a job that the caller worked on from `start` to `worked`, running `own` of its `tasks`,
  // and saw finished at `done`: whether the helpers paid, and so whether the next jobs run on the
  // caller alone. (Tasks of a job are about equal: blocks of one loop.)
  void judge(Clock::time_point start, Clock::time_point worked, Clock::time_point done,
             std::size_t own, std::size_t tasks) {
    using Seconds = std::chrono::duration<double>;
    const bool paid = own == 0 ||  // helpers ran it all
                      Seconds(done - start).count() * static_cast<double>(own) <=
                          kPayingShare * Seconds(worked - start).count() * static_cast<double>(tasks);
    if (!paid) {
      alone_until_.store(done + alone_for_, std::memory_order_relaxed);
      alone_for_ = std::min<Clock::duration>(alone_for_ * 2, kAloneLongest);
    } else {
      alone_for_ = kAloneFirst;
    }
  }

  // Starts helpers until there are `count`; they live as long as the process. Called before the
  // next job is published: a new helper starts from the job before it, so that it takes part in
  // that next job even when its thread starts running after the job was published (a program
  // whose first job is one long streamed pass would otherwise run it on the caller alone).
  void hire(int count) {
    const std::uint32_t before = job_.load(std::memory_order_relaxed);
    while (static_cast<int>(helpers_started_) < count) {
      const int number = static_cast<int>(helpers_started_++);
      std::thread([this, number, before] { serve(number, before); }).detach();
    }
  }

  // A helper's life: wait for a job after `seen`, take part when its number is within the job's
  // helpers.
  void serve(int number, std::uint32_t seen) {
    for (;;) {
      const auto new_job = [&] { return job_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(new_job, kHelperSpin)) job_.wait(seen, std::memory_order_acquire);
      const std::uint32_t id = job_.load(std::memory_order_acquire);
      if (id == seen) continue;
      seen = id;
      if (number < helpers_.load(std::memory_order_relaxed)) work(id);
    }
  }

  // The claim word: the job's id, its task count and its next unclaimed task, in one atomic so
  // that a helper still looking at a finished job can never claim a task of the next one.
  static std::uint64_t claim_word(std::uint32_t id, std::uint32_t tasks, std::uint32_t index) {
    return std::uint64_t{id} << 32 | std::uint64_t{tasks} << 16 | index;
  }

  // Claims and runs tasks of job `id` until none is left (or the job is no longer current);
  // returns how many it ran.
  std::size_t work(std::uint32_t id) {
    for (std::size_t ran = 0;; ++ran) {
      std::uint64_t claim = next_.load(std::memory_order_relaxed);
      std::uint32_t index, tasks;
      do {
        index = static_cast<std::uint32_t>(claim & 0xFFFF);
        tasks = static_cast<std::uint32_t>(claim >> 16 & 0xFFFF);
        if (claim >> 32 != id || index >= tasks) return ran;  // another job, or all claimed
      } while (!next_.compare_exchange_weak(claim, claim + 1, std::memory_order_acquire,
                                            std::memory_order_relaxed));
      // The job cannot change before this task is counted finished, so these are its own.
      if (!failed_.load(std::memory_order_relaxed)) {
        try {
          in_task = true;
          function_.load(std::memory_order_relaxed)(task_.load(std::memory_order_relaxed), index);
          in_task = false;
        } catch (...) {
          in_task = false;
          std::lock_guard lock(error_mutex_);
          if (!failed_.load(std::memory_order_relaxed)) {
            error_ = std::current_exception();
            failed_.store(true, std::memory_order_relaxed);
          }
        }
      }
      if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == tasks) finished_.notify_all();
    }
  }

  std::mutex busy_;                 // held by the caller of the running job
  std::uint32_t last_job_ = 0;      // under busy_
  unsigned helpers_started_ = 0;    // under busy_
  // Jobs before it run on the caller alone; written under busy_.
  std::atomic<Clock::time_point> alone_until_{Clock::time_point{}};
  Clock::duration alone_for_ = kAloneFirst;  // under busy_
  std::atomic<std::uint32_t> job_{0};  // the current job's id; helpers wait on it
  // The job: written before next_ and job_ are published, read by whoever claims a task.
  std::atomic<TaskFunction> function_{nullptr};
  std::atomic<void*> task_{nullptr};
  std::atomic<int> helpers_{0};
  std::atomic<std::uint64_t> next_{0};  // claim_word: the job's id, tasks, next unclaimed task
  std::atomic<std::uint32_t> finished_{0};
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;  // the first exception a task of the job threw
};

// Never destroyed: its helpers block in it until the process ends.
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

}  // namespace

int available_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

bool helpers_pay() { return pool().helpers_pay(); }

const void*& operation_scope() {
  thread_local const void* scope = nullptr;
  return scope;
}

AdoptedOperationScope::AdoptedOperationScope(const void* scope)
    : previous_(std::exchange(operation_scope(), scope)) {}

AdoptedOperationScope::~AdoptedOperationScope() { operation_scope() = previous_; }

// Each task runs in its caller's operation scope (what it acquires is charged to the caller's
// memory budget), on whichever thread it runs.
void run_tasks_erased(int helpers, std::size_t tasks, TaskFunction function, void* task) {
  struct InScope {
    TaskFunction function;
    void* task;
    const void* scope;
  } in_scope{function, task, operation_scope()};
  pool().run(helpers, tasks, [](void* job, std::size_t i) {
    auto* c = static_cast<InScope*>(job);
    const AdoptedOperationScope adopted(c->scope);
    c->function(c->task, i);
  }, &in_scope);
}

}  // namespace cvl::cpu
