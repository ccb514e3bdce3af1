// The limits a user sets on a run, read from their command-line text as vinterp and nesl take
// them: --max-memory SIZE and --max-call-depth N.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vinterp {

// --max-memory SIZE: a positive number of bytes, optionally followed by K, M, G or T (powers of
// 1024, either case, an optional B or iB after them: 512M, 8G, 1GiB). Throws
// std::invalid_argument saying what is expected.
std::uint64_t parse_memory_size(const std::string& text);

// --max-call-depth N: 1 or more. Throws std::invalid_argument saying so.
std::size_t checked_call_depth(long long depth);

}  // namespace vinterp
