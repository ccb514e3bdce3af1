// A length as the interpreter reads it: a vector's element count, a descriptor's segment count or
// total. The one place a length is read, so that where it lives can change without touching the
// machine's handlers.
//
// Today every length is known on the host when the operation that makes it returns (backends
// synchronize for PACK's result and for MAKE_SEGDES of device lengths), and a Length is a plain
// count: get() is a load. An asynchronous GPU control path would let such an operation return
// first, with the count still on the device; a Length would then also hold the backend's pending
// count, and get() would be where the host waits for it (one synchronization, once: the count is
// kept). The machine reads lengths only through vm::Value's accessors, which return get(); a
// handler that needs no count (a stack move, an operation the backend checks itself) never waits.
#pragma once

#include <cstddef>

namespace cvl {

class Length {
 public:
  constexpr Length() = default;
  constexpr Length(std::size_t known) : count_(known) {}  // NOLINT: a count is a known length

  // The count, known on the host.
  constexpr std::size_t get() const { return count_; }

 private:
  std::size_t count_ = 0;
};

}  // namespace cvl
