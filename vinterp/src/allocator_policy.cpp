#include "allocator_policy.hpp"

#include <malloc.h>

#include <limits>

namespace vinterp {

void keep_freed_memory_for_reuse() {
  // glibc serves large requests with fresh mmap'ed memory and unmaps it on free, so every large
  // vector would page-fault (and have the kernel zero) every page it touches, which costs more
  // than most operations on the data; it also trims the top of its heap. Keeping all vector
  // memory in the heap and never trimming it makes freed vectors' pages serve later ones, like
  // the classic interpreter's preallocated arena, which cuts both run time and peak memory
  // (bench/RESULTS.md). The heap still grows by mmap where brk cannot.
  // cvl-cpu's large buffers no longer come from here (its buffer cache maps and reuses pages
  // itself); what remains is small buffers and the interpreter's own memory.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

}  // namespace vinterp
