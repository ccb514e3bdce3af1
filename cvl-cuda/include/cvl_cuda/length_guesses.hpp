#pragma once
// The guesses cvl-cuda makes for lengths it has not counted yet (speculation: a MAKE_SEGDES of
// lengths on the device returns at once, its result allocated at a guessed total; the next
// synchronization checks the guess, and a region whose guess was too small runs again). Host-only,
// so CI tests the policy without a GPU.
//
// The policy follows each instruction's history: a site whose counts grow (the segments of a
// flattened recursion double at each level) is guessed one step further, at most doubling; any
// other site, the most it ever counted. A quarter more is added, rounded up to kMinimumGuess
// elements, because a failed guess costs a region run twice while a generous one costs only
// memory. A site's first count is guessed as the largest length met so far.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace cvl::speculation {

class LengthGuesses {
 public:
  static constexpr std::uint32_t kNoSite = ~std::uint32_t{0};
  // Guesses are at least this many elements (small buffers cost nothing to over-allocate).
  static constexpr std::size_t kMinimumGuess = 4096;
  // A guess whose buffer (8-byte elements) would take more than this share of the memory limit is
  // not made: the host waits for the count instead.
  static constexpr std::uint64_t kShareOfMemory = 64;
  // No vector is longer (the VM refuses longer descriptors): no guess beyond it.
  static constexpr std::size_t kLongestVector = 0x7FFFFFFF;

  // A length met: an allocation of known length (kNoSite), or a count made at `site` that held
  // its guess, or one that `broke` it. The region with a broken guess runs again and counts the
  // same again: that count replaces the broken one instead of looking like a level of no growth.
  void record(std::uint32_t site, std::size_t n, bool broke = false) {
    largest_ = std::max(largest_, n);
    if (site == kNoSite) return;
    History& h = sites_[site];
    h.most = std::max(h.most, n);
    // The same count again is the same level (a function called twice), not a level of no growth.
    if (n == h.last && h.counts > 0) {
      h.last_broke = broke;
      return;
    }
    if (!h.last_broke) {
      h.before_last = h.last;
      ++h.counts;
    }
    h.last = n;
    h.last_broke = broke;
  }

  // The bound to assume for a count about to be made at `site`; 0: make no guess.
  std::size_t guess(std::uint32_t site, std::uint64_t memory_limit) const {
    std::size_t expected = 0;
    if (const auto known = sites_.find(site); known != sites_.end()) {
      const History& h = known->second;
      expected = std::max(h.most, h.last);
      if (h.counts >= 2 && h.before_last > 0 && h.last > h.before_last) {
        const double factor =
            std::min(kMostGrowth, static_cast<double>(h.last) / static_cast<double>(h.before_last));
        const double next = static_cast<double>(h.last) * factor;
        if (next > static_cast<double>(kLongestVector)) return 0;
        expected = std::max(expected, static_cast<std::size_t>(next));
      }
      expected += expected / kMarginDivisor;
      expected = (expected + kMinimumGuess - 1) / kMinimumGuess * kMinimumGuess;
    } else {
      expected = kMinimumGuess;
      while (expected < largest_) expected *= 2;
    }
    expected = std::max(expected, kMinimumGuess);
    if (expected > kLongestVector) return 0;
    const std::uint64_t limit = memory_limit > 0 ? memory_limit : ~std::uint64_t{0};
    return expected * sizeof(std::int64_t) <= limit / kShareOfMemory ? expected : 0;
  }

 private:
  // The margin added to a guess: 1/kMarginDivisor of it.
  static constexpr std::size_t kMarginDivisor = 4;
  // A site's growth is followed up to doubling (one level of a flattened binary recursion):
  // a larger jump is taken as a one-off, not a rate to extrapolate.
  static constexpr double kMostGrowth = 2.0;
  struct History {
    std::size_t most = 0;         // the largest count made here
    std::size_t last = 0;         // the latest
    std::size_t before_last = 0;  // the one before it
    std::size_t counts = 0;
    bool last_broke = false;      // `last` broke its guess: the next count replaces it
  };
  std::size_t largest_ = 0;  // the largest length met anywhere
  std::unordered_map<std::uint32_t, History> sites_;
};

}  // namespace cvl::speculation
