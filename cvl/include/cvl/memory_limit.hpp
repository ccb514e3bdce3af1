// The vector memory limit (vinterp --max-memory, BackendOptions::max_memory): the default for
// backends whose vectors live in host memory, and the one-line error of an allocation refused
// because it would pass the limit. Backends check before they allocate.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <string>

#include "cvl/errors.hpp"

namespace cvl {

// 3/4 of physical memory (sysconf): room for the interpreter, the OS and the C library's
// allocator's slack, so that a program asking for too much gets an error, not the OOM killer.
inline std::uint64_t default_host_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;  // unknown: no limit of our own
  return static_cast<std::uint64_t>(pages) / 4 * 3 * static_cast<std::uint64_t>(page_size);
}

[[noreturn]] inline void throw_memory_limit(std::uint64_t requested, std::uint64_t in_use,
                                            std::uint64_t limit) {
  throw Error("out of vector memory: " + std::to_string(requested) + " bytes requested, " +
              std::to_string(in_use) + " in use, limit " + std::to_string(limit) +
              " (--max-memory)");
}

}  // namespace cvl
