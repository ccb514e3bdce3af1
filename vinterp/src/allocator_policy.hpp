// The C library allocator policy of the vinterp program: a choice for the whole process, so it is
// made here and not by a vector library (one linked into another program must not change its
// allocator behind its back).
#pragma once

namespace vinterp {

// Keeps freed vector memory in the heap for reuse instead of returning it to the system.
void keep_freed_memory_for_reuse();

}  // namespace vinterp
