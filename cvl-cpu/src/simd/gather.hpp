// Gathers of 4- and 8-byte elements with AVX-512's gather instructions, where they pay:
// 16 or 8 elements a step instead of a load and a store each. On a source that stays in the cache
// (bh's bodies and cells, read at each interaction's positions) that beats the scalar loop on
// the Xeons measured (bench/RESULTS.md); on a source far larger than the cache the loads' misses
// cost the same either way.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cvl::cpu::simd {

// out[i] = values[positions[i]] for i < n, every position known to be in range.
template <class Bits>
using GatherFunction = void (*)(std::size_t n, const std::int32_t* positions, const Bits* values,
                                Bits* out);

// out[j] = values[idx[j]] for j in [lo, hi) up to the first j whose index, read as unsigned, is
// not below `length`; returns that j, or hi. Elements before it are written as the scalar loop
// writes them, and out may be idx's memory (each index is read before its element is written).
template <class Bits>
using CheckedGatherFunction = std::size_t (*)(const Bits* values, std::uint32_t length,
                                              const std::int32_t* idx, Bits* out, std::size_t lo,
                                              std::size_t hi);

// Where the AVX-512 versions are handed out: on CPUs where they beat the scalar loop
// (cpu_features.hpp), or on any that can run them (the tests check them there).
enum class Use { WhereFaster, WhereRunnable };

// The AVX-512 versions, or nullptr (and in builds for other processors): the caller's scalar
// loop then.
GatherFunction<std::uint32_t> gather32(Use use = Use::WhereFaster);
GatherFunction<std::uint64_t> gather64(Use use = Use::WhereFaster);
CheckedGatherFunction<std::uint32_t> checked_gather32(Use use = Use::WhereFaster);
CheckedGatherFunction<std::uint64_t> checked_gather64(Use use = Use::WhereFaster);

}  // namespace cvl::cpu::simd
