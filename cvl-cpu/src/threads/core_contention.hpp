// Whether other processes hold this machine's cores: the share of time the calling thread spent
// runnable but waiting for a core (the kernel's per-thread run delay, /proc/thread-self/schedstat),
// measured over windows of wall time. With the cores to ourselves that share is near zero, with
// one other busy process per core about a half; helper threads then only add waiting, so the
// thread pool runs jobs on the caller alone (thread_pool.hpp).
#pragma once

namespace cvl::cpu {

// True while the last measured window had the calling thread waiting for a core more than a
// fifth of the time. Re-measured when a window (20 ms) has passed, on the thread that asks;
// false where the kernel does not report run delays. Cheap between measurements; thread-safe.
bool cores_contended();

}  // namespace cvl::cpu
