// PACK's compaction (simd/compact.hpp), portable, AVX2 and AVX-512, against the plain definition:
// random flags of every density, lengths around the vector widths (the scalar tail), and nothing
// stored past the kept elements (blocks of one PACK write side by side).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "simd/compact.hpp"

namespace cvl::cpu {
namespace {

template <class Word>
void check_against_loop(simd::CompactFunction<Word> compact) {
  std::mt19937_64 random(42);
  constexpr Word kUntouched = static_cast<Word>(0x5a5a5a5a5a5a5a5aULL);
  for (std::size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 4099}) {
    for (unsigned density : {0u, 10u, 50u, 90u, 100u}) {
      std::vector<Word> in(n);
      std::vector<std::uint8_t> flags(n);
      for (std::size_t i = 0; i < n; ++i) {
        in[i] = static_cast<Word>(random());
        flags[i] = random() % 100 < density ? 1 : 0;
      }
      std::vector<Word> expected;
      for (std::size_t i = 0; i < n; ++i)
        if (flags[i]) expected.push_back(in[i]);
      std::vector<Word> out(n + 16, kUntouched);
      const std::size_t kept = compact(in.data(), flags.data(), n, out.data());
      INFO("n " << n << ", density " << density << "%");
      REQUIRE(kept == expected.size());
      CHECK(std::equal(expected.begin(), expected.end(), out.begin()));
      for (std::size_t i = kept; i < out.size(); ++i) REQUIRE(out[i] == kUntouched);
    }
  }
}

}  // namespace

TEST_CASE("PACK's compaction keeps the flagged elements in order, and stores no more",
          "[cpu][pack]") {
  check_against_loop<std::uint32_t>(&simd::compact_portable<std::uint32_t>);
  check_against_loop<std::uint64_t>(&simd::compact_portable<std::uint64_t>);
  // The widest versions, and the AVX2 ones, where this CPU and build have them.
  if (const auto compact32 = simd::compact32()) check_against_loop(compact32);
  if (const auto compact64 = simd::compact64()) check_against_loop(compact64);
  if (const auto compact32 = simd::compact32_avx2()) check_against_loop(compact32);
  if (const auto compact64 = simd::compact64_avx2()) check_against_loop(compact64);
}

}  // namespace cvl::cpu
