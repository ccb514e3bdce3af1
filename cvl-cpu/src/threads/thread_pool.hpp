// cvl-cpu's worker threads: run_tasks(helpers, n, task) runs task(0) .. task(n - 1) on the
// calling thread and up to `helpers` pool threads, each task once, claimed in order by whichever
// thread is free.
//
// Why not OpenMP: a team that spins at its barriers collapses when other processes hold the
// cores (slower than one thread beside busy processes; bench/RESULTS.md), and its wait policy is
// the process's environment, not the library's to set. Here a task nobody has started is taken
// by the caller, so a helper the OS has not scheduled never holds the caller up; helpers spin
// only briefly for the next job, then sleep on a futex (std::atomic::wait), and so does the
// caller when it waits for a task another thread is still running. A helper descheduled in the
// middle of a task still holds the caller up, and a helper that wakes late does little: after a
// job that took more than 90% of what the caller alone would have needed, the next jobs run on
// the caller alone for a while (10 ms, doubling up to 1 s while it keeps happening). Results
// never depend on which thread ran a task.
#pragma once

#include <cstddef>
#include <type_traits>

namespace cvl::cpu {

// The cores this process may run on (its CPU affinity): the default thread count.
int available_cores();

// False for a while after a job that the helpers did not speed up (see above): jobs then run on
// the caller alone, and a loop may as well take its sequential form.
bool helpers_pay();

// What this thread works for: a pointer the layers above set for each operation (the memory
// budget it charges, memory_budget.hpp's MemoryScope) and the pool hands on, so that a task sees
// its caller's on whichever thread it runs. Null where nothing set it.
const void*& operation_scope();

// Makes `scope` (an operation_scope() taken on another thread) this thread's while it lives, and
// restores the thread's own after: the pool runs each task inside one, with its caller's scope.
class AdoptedOperationScope {
 public:
  explicit AdoptedOperationScope(const void* scope);
  ~AdoptedOperationScope();
  AdoptedOperationScope(const AdoptedOperationScope&) = delete;
  AdoptedOperationScope& operator=(const AdoptedOperationScope&) = delete;

 private:
  const void* previous_;
};

using TaskFunction = void (*)(void* task, std::size_t index);

// Runs function(task, i) for every i < tasks; see run_tasks. The first exception a task throws
// is rethrown here after every task has finished or been skipped.
void run_tasks_erased(int helpers, std::size_t tasks, TaskFunction function, void* task);

// Runs task(i) for every i < tasks, on the caller and up to `helpers` (>= 0) pool threads; on
// the caller alone when tasks < 2 or tasks > 65535, helpers == 0, inside a task, while another
// thread's job runs, or for a while after a job the helpers did not speed up.
template <class Task>
void run_tasks(int helpers, std::size_t tasks, Task&& task) {
  using T = std::remove_reference_t<Task>;
  run_tasks_erased(
      helpers, tasks, [](void* t, std::size_t i) { (*static_cast<T*>(t))(i); },
      const_cast<void*>(static_cast<const void*>(&task)));
}

}  // namespace cvl::cpu
