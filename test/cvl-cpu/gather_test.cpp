// The AVX-512 gathers (simd/gather.hpp) against the plain loop: random positions over sources of
// several sizes, lengths around the vector widths (the scalar tail), a bad index in every place
// of a step for the checked form (the first bad one found, everything before it written, nothing
// after), and an output that is the index's own memory (a 4-byte gather in place).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "simd/gather.hpp"

namespace cvl::cpu {
namespace {

constexpr std::size_t kLengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 4099};

template <class Bits>
std::vector<Bits> random_source(std::size_t n, std::mt19937_64& random) {
  std::vector<Bits> source(n);
  for (Bits& x : source) x = static_cast<Bits>(random());
  return source;
}

template <class Bits>
void check_gather(simd::GatherFunction<Bits> gather) {
  std::mt19937_64 random(7);
  for (std::size_t source_length : {1u, 20u, 70000u}) {
    const std::vector<Bits> source = random_source<Bits>(source_length, random);
    for (std::size_t n : kLengths) {
      std::vector<std::int32_t> positions(n);
      for (auto& p : positions) p = static_cast<std::int32_t>(random() % source_length);
      std::vector<Bits> out(n + 1, Bits{0x5a});
      gather(n, positions.data(), source.data(), out.data());
      INFO("source " << source_length << ", n " << n);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == source[positions[i]]);
      REQUIRE(out[n] == Bits{0x5a});
    }
  }
}

// lo..hi of a longer index, with a bad index (too large, or negative) at `bad` when given.
template <class Bits>
void check_checked_gather(simd::CheckedGatherFunction<Bits> gather) {
  std::mt19937_64 random(11);
  const std::uint32_t length = 5000;
  const std::vector<Bits> source = random_source<Bits>(length, random);
  for (std::size_t n : kLengths) {
    for (std::size_t lo : {0u, 3u}) {
      const std::size_t hi = lo + n;
      std::vector<std::size_t> bad_places{hi};  // none
      for (std::size_t b = lo; b < hi && b < lo + 40; ++b) bad_places.push_back(b);
      if (n > 0) bad_places.push_back(hi - 1);
      for (std::size_t bad : bad_places) {
        for (std::int32_t bad_value : {static_cast<std::int32_t>(length), -1}) {
          std::vector<std::int32_t> idx(hi + 4);
          for (auto& p : idx) p = static_cast<std::int32_t>(random() % length);
          if (bad < hi) idx[bad] = bad_value;
          if (bad + 1 < hi) idx[bad + 1] = bad_value;  // only the first is reported
          std::vector<Bits> out(hi + 4, Bits{0x5a});
          const std::size_t found = gather(source.data(), length, idx.data(), out.data(), lo, hi);
          INFO("n " << n << ", lo " << lo << ", bad at " << bad << " (" << bad_value << ")");
          REQUIRE(found == bad);
          for (std::size_t j = 0; j < out.size(); ++j) {
            if (j >= lo && j < bad) REQUIRE(out[j] == source[static_cast<std::uint32_t>(idx[j])]);
            else REQUIRE(out[j] == Bits{0x5a});
          }
        }
      }
    }
  }
}

// The index's memory as the output, as BPERMUTE INT does at the index's last use.
void check_in_place(simd::CheckedGatherFunction<std::uint32_t> gather) {
  std::mt19937_64 random(13);
  const std::vector<std::uint32_t> source = random_source<std::uint32_t>(3000, random);
  for (std::size_t n : kLengths) {
    std::vector<std::int32_t> idx(n);
    for (auto& p : idx) p = static_cast<std::int32_t>(random() % source.size());
    const std::vector<std::int32_t> original = idx;
    auto* out = reinterpret_cast<std::uint32_t*>(idx.data());
    REQUIRE(gather(source.data(), 3000, idx.data(), out, 0, n) == n);
    for (std::size_t j = 0; j < n; ++j) REQUIRE(out[j] == source[original[j]]);
  }
}

}  // namespace

TEST_CASE("the AVX-512 gathers read what the scalar loop reads", "[cpu][gather]") {
  if (const auto g = simd::gather32(simd::Use::WhereRunnable)) check_gather(g);
  if (const auto g = simd::gather64(simd::Use::WhereRunnable)) check_gather(g);
}

TEST_CASE("the AVX-512 checked gathers stop at the first bad index, as the scalar loop does",
          "[cpu][gather]") {
  if (const auto g = simd::checked_gather32(simd::Use::WhereRunnable)) {
    check_checked_gather(g);
    check_in_place(g);
  }
  if (const auto g = simd::checked_gather64(simd::Use::WhereRunnable)) check_checked_gather(g);
}

}  // namespace cvl::cpu
