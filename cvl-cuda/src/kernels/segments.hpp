// Kernel bodies for PACK and RANK: the new descriptor and compaction of PACK, and the sort keys
// and rank scatter of RANK. Launches are sized by bounds where counts are pending (handles.hpp);
// the bodies treat the items past a count as the segment-key convention says.
#pragma once

#include "cvl/scalar_semantics.hpp"
#include "handles.hpp"
#include "tuning.hpp"

namespace cvl::CVL_CUDA_NS::kernels {

// PACK in one tiled launch (Device::launch_tiles). Tile t holds elements t * kPackTile onwards,
// kPackPerLane consecutive ones per lane, so that a block-wide scan of the lanes' flag counts
// orders them. The phases:
//   0. each tile's count of T flags, into tile_prefix[t];
//   1. one block turns those counts into each tile's count of T flags before it (lane by lane
//      over runs of tiles, the runs' sums scanned across the block), the sum of all into `total`
//      and `total_value`;
//   2. each tile scans its lanes' counts again, so each element knows how many kept elements come
//      before it: the kept ones move there, and with several segments that number is written to
//      `before` (one entry per element) for phase 3;
//   3. per segment k (and one past the last): the new offset, the number kept before its start
//      (`total` at or past the last element read), and its new length.
// Only the elements below the count are read (the flags past it are not the program's). Past a
// pending segment count the offsets all equal the real total (handles.hpp), so the new ones do
// too, and those lengths are 0.
inline constexpr std::size_t kPackPerLane = 4;
inline constexpr std::size_t kPackTile = kPackPerLane * cuda_tuning::kBlockSize;

template <class Bits>
struct PackTiles {
  static constexpr int kPhases = 4;
  static constexpr int kScanSteps = 8;  // a block-wide scan: one step per bit of the lane number
  static_assert((1u << kScanSteps) == cuda_tuning::kBlockSize);
  CVL_HD static constexpr int steps(int phase) {
    return phase == 0 ? 1 + kScanSteps : phase == 3 ? 1 : 2 + kScanSteps;
  }

  const Bits* values;
  const std::uint8_t* flags;
  SegmentView sd;
  Extent elements;
  std::size_t element_tiles;    // of kPackTile elements, at the bound
  std::uint32_t* tile_prefix;   // element_tiles entries
  std::uint32_t* before;        // an entry per element; null with one segment
  Bits* out;
  std::int32_t* counts;
  std::int64_t* offsets;
  std::int64_t* total;
  std::int32_t* total_value;  // the total as an INT too

  CVL_HD std::size_t tiles(int phase) const {
    if (phase == 1) return 1;
    if (phase == 3) return (sd.segments + cuda_tuning::kBlockSize) / cuda_tuning::kBlockSize;
    return element_tiles;
  }

  CVL_HD void operator()(int phase, int step, std::size_t tile, unsigned lane,
                         TileScratch& scratch) const {
    if (phase == 0) {
      count_tile(step, tile, lane, scratch);
    } else if (phase == 1) {
      prefix_tiles(step, lane, scratch);
    } else if (phase == 2) {
      move_kept(step, tile, lane, scratch);
    } else {
      const std::size_t k = tile * cuda_tuning::kBlockSize + lane;
      if (k > sd.segments) return;
      const std::int64_t first = kept_before(sd.start(k));
      offsets[k] = first;
      if (k < sd.segments) counts[k] = static_cast<std::int32_t>(kept_before(sd.start(k + 1)) - first);
    }
  }

 private:
  // The T flags among this lane's elements of `tile`.
  CVL_HD std::uint32_t lane_count(std::size_t tile, unsigned lane) const {
    const std::size_t n = elements.items();
    const std::size_t first = tile * kPackTile + lane * kPackPerLane;
    std::uint32_t count = 0;
    for (std::size_t j = first; j < first + kPackPerLane && j < n; ++j) count += flags[j] ? 1 : 0;
    return count;
  }
  // Step 0 puts each lane's count in words[0]; steps 1 .. kScanSteps leave the inclusive scan of
  // the lanes' counts there, each step reading one half of the scratch and writing the other.
  CVL_HD static void scan_step(int step, unsigned lane, TileScratch& scratch) {
    const unsigned distance = 1u << (step - 1);
    const std::uint32_t* from = scratch.words[(step - 1) & 1];
    std::uint32_t* to = scratch.words[step & 1];
    to[lane] = from[lane] + (lane >= distance ? from[lane - distance] : 0);
  }
  static_assert(kScanSteps % 2 == 0, "the scan ends in words[0]");

  CVL_HD void count_tile(int step, std::size_t tile, unsigned lane, TileScratch& scratch) const {
    std::uint32_t* sums = scratch.words[0];
    if (step == 0) {
      sums[lane] = lane_count(tile, lane);
      return;
    }
    const unsigned half = cuda_tuning::kBlockSize >> step;  // a tree: half the lanes add a pair
    if (lane < half) sums[lane] += sums[lane + half];
    if (step == kScanSteps && lane == 0) tile_prefix[tile] = sums[0];
  }

  CVL_HD void prefix_tiles(int step, unsigned lane, TileScratch& scratch) const {
    const std::size_t run = (element_tiles + cuda_tuning::kBlockSize - 1) / cuda_tuning::kBlockSize;
    const std::size_t first = lane * run;
    const std::size_t end = first + run < element_tiles ? first + run : element_tiles;
    if (step == 0) {
      std::uint32_t sum = 0;
      for (std::size_t t = first; t < end; ++t) sum += tile_prefix[t];
      scratch.words[0][lane] = sum;
    } else if (step <= kScanSteps) {
      scan_step(step, lane, scratch);
    } else {
      std::uint32_t running = lane > 0 ? scratch.words[0][lane - 1] : 0;
      for (std::size_t t = first; t < end; ++t) {
        const std::uint32_t count = tile_prefix[t];
        tile_prefix[t] = running;
        running += count;
      }
      if (lane == cuda_tuning::kBlockSize - 1) {
        *total = scratch.words[0][lane];
        *total_value = static_cast<std::int32_t>(scratch.words[0][lane]);
      }
    }
  }

  CVL_HD void move_kept(int step, std::size_t tile, unsigned lane, TileScratch& scratch) const {
    if (step == 0) {
      scratch.words[0][lane] = lane_count(tile, lane);
    } else if (step <= kScanSteps) {
      scan_step(step, lane, scratch);
    } else {
      std::uint32_t at = tile_prefix[tile] + (lane > 0 ? scratch.words[0][lane - 1] : 0);
      const std::size_t n = elements.items();
      const std::size_t first = tile * kPackTile + lane * kPackPerLane;
      for (std::size_t j = first; j < first + kPackPerLane && j < n; ++j) {
        if (before) before[j] = at;
        if (!flags[j]) continue;
        if (at < elements.bound) out[at] = values[j];
        ++at;
      }
    }
  }

  // The kept elements before position p of the elements (p at most the descriptor's total).
  CVL_HD std::int64_t kept_before(std::size_t p) const {
    if (p >= elements.items()) return *total;
    return before ? before[p] : 0;  // one segment: p is its start, 0
  }
};

// RANK sort keys: order-preserving unsigned keys, complemented for RANK_DOWN; with several
// segments an INT key carries its segment above it so one sort ranks every segment.
// RANK sort keys: order-preserving unsigned keys, complemented for RANK_DOWN. With several
// segments, or a pending count, an INT key carries its segment key above it (handles.hpp), so one
// sort ranks every segment and puts the elements past the count last.
struct IntRankKeys {
  const std::int32_t* values;
  SegmentKey segment;
  bool segmented, descending;
  std::uint64_t* keys;
  std::uint32_t* elements;
  CVL_HD void operator()(std::size_t j) const {
    std::uint32_t key = cvl_sem::int_rank_key(values[j]);
    if (descending) key = ~key;
    keys[j] = segmented ? (static_cast<std::uint64_t>(segment(j)) << 32) | key : key;
    elements[j] = static_cast<std::uint32_t>(j);
  }
};

struct FloatRankKeys {
  const double* values;
  bool legacy, descending;
  std::uint64_t* keys;
  std::uint32_t* elements;
  CVL_HD void operator()(std::size_t j) const {
    const std::uint64_t key = legacy ? cvl_sem::legacy_float_rank_key(values[j])
                                     : cvl_sem::float_rank_key(values[j]);
    keys[j] = descending ? ~key : key;
    elements[j] = static_cast<std::uint32_t>(j);
  }
};

// After a stable sort of the FLOAT keys, the segment key of each sorted element (second sort key).
struct SegmentOfElement {
  const std::uint32_t* elements;
  SegmentKey segment;
  std::uint32_t* segments;
  CVL_HD void operator()(std::size_t p) const { segments[p] = segment(elements[p]); }
};

// Sorted position p holds element e of segment seg(p): its rank is p - start(seg(p)).
struct ScatterRanks {
  const std::uint32_t* elements;
  SegmentView sd;
  std::int32_t* rank;
  CVL_HD void operator()(std::size_t p) const {
    rank[elements[p]] = static_cast<std::int32_t>(p - sd.start(sd.segment_of(p)));
  }
};

// LENGTH of a pending length: its count as an INT.
struct CopyCount {
  const std::int64_t* count;
  std::int32_t* out;
  CVL_HD void operator()(std::size_t) const { *out = static_cast<std::int32_t>(*count); }
};

}  // namespace cvl::CVL_CUDA_NS::kernels
