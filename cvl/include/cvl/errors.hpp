// The kinds of failure a vector library (and the interpreter) reports: each says whose fault it
// is, and vinterp prints each differently (vm/error_report.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cvl {

// A runtime error caused by the program's data (index out of range, division by zero, a negative
// segment length, ...). The interpreter names the VCODE instruction and exits 1.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An Error found after the operation that caused it (a device fault read at a later
// synchronization): `site` is the instruction that operation ran for (Backend::operation_site),
// which the interpreter names instead of the one running now.
struct DeferredError : Error {
  DeferredError(const std::string& message, std::uint32_t at) : Error(message), site(at) {}
  std::uint32_t site;
};

// The message of an index outside its segment (permutes, EXTRACT, REPLACE), on every backend.
inline std::string index_fault_message(std::string_view op, long long index,
                                       unsigned long long position, unsigned long long length) {
  return std::string(op) + ": index " + std::to_string(index) + " at position " +
         std::to_string(position) + " is outside its segment of length " + std::to_string(length);
}

// The longest vector a program may make (lengths are INT scalars), and the message of a segment
// descriptor longer than that, on every backend and in the interpreter.
inline constexpr std::uint64_t kMaxVectorLength = 2147483647;
inline std::string vector_too_long_message(std::uint64_t total) {
  return "segment lengths sum to " + std::to_string(total) +
         " elements, more than a vector may hold (" + std::to_string(kMaxVectorLength) + ")";
}

// A broken invariant: a bug in the interpreter or a backend, never the program's fault (an
// operand whose shape the interpreter should have checked, an op a family does not implement).
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

// The device or its runtime failed: a CUDA call's error, no usable device, out of device memory,
// NVRTC failing to compile a kernel. Not the program's fault, and not (necessarily) a bug.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A synchronization found that a guessed bound (PendingCount::assume_bound) was too small: the
// work since the last certain point was cut short. Not a failure of the program: the interpreter
// goes back to that point and runs again without guessing (vm/machine.hpp: Checkpoint).
struct SpeculationFailed : std::exception {
  const char* what() const noexcept override {
    return "a guessed length was too small (the interpreter runs the region again)";
  }
};

}  // namespace cvl
