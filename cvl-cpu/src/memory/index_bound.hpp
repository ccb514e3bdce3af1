// What a check of an index vector finds, kept on its buffer (Buffer::indices_below): a later op
// by the same index needs no check of its own (a gather left pending, the fields of a tuple
// moved by one index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cvl/types.hpp"
#include "threads/parallel.hpp"

namespace cvl::cpu {

// The bound found when every element of `indices` (INT), read as unsigned, is below `length`,
// which is then recorded (Buffer::indices_below); else nothing (the op that reads them reports
// the bad one).
std::optional<std::uint32_t> check_indices_below(const Parallel& par, const Vector& indices,
                                                 std::size_t length);

}  // namespace cvl::cpu
