// What a distributed vector and a distributed segment descriptor hold on one process.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cvl/types.hpp"
#include "layout.hpp"

namespace cvl::mpi {

// A short vector whole on every process, for the local CVL to gather from (short_gather.cpp):
// its elements and a descriptor of one segment of them.
struct ReplicatedSource {
  Vector values;
  Segdes segdes;
};

// A vector that is a short source read at positions: the source, whole here, and the positions
// (INT, distributed as the vector is). Gathers and permutes of the vector move the positions.
struct ReadAt {
  std::shared_ptr<const ReplicatedSource> source;
  Vector positions;
};

// This process's block (layout.hpp) of a vector, as a vector of the local CVL.
struct DistributedVector : Storage {
  explicit DistributedVector(Vector l) : local(std::move(l)) {}
  Vector local;
  // Set alike on every process: where the vector is a short source read at positions.
  std::shared_ptr<const ReadAt> read_at;
  // The vector whole on this process, once a gather of it as a short source has asked.
  mutable std::shared_ptr<const ReplicatedSource> whole;
};

// A segment descriptor of `segments` segments and `total` elements, seen two ways:
// - by segment: the lengths vector (distributed over the segments like any vector) and, for this
//   process's block of segments, the lengths and the global position where each segment starts;
// - by element: the pieces of segments that this process's block of elements holds, in order. A
//   segment that crosses blocks is cut at their borders; the first piece may be the rest of a
//   segment that starts on an earlier process (`continues`). Each segment belongs to the process
//   whose block holds its start (a segment starting at `total`, which is empty, to the last one);
//   empty segments are pieces of length 0 there.
//
// `aligned` (the same on every process): each process's pieces are exactly its block of segments,
// whole. Then a segment's own values (by segment) and its elements are on the same process, and
// per-segment operations run on the local CVL's blocks alone, with no host copy. Always so on one
// process, and for a descriptor of segments of one element each (MAKE_SEGDES of a vector of
// ones) on any number: there the host arrays below are made only when a general path first asks
// for them (MpiBackend::parts); elsewhere they are made with the descriptor.
struct DistributedSegdes : Storage {
  Vector lengths;                         // distributed by segment
  Segdes local;                 // the local CVL's descriptor of the pieces
  bool aligned = false;
  bool crosses = false;         // some segment crosses a border (the same on every process)

  // On the host, once `host_pieces`:
  mutable bool host_pieces = true;
  mutable std::vector<std::int32_t> my_lengths;   // this process's block of the lengths
  mutable std::int64_t my_first_start = 0;        // where the first of those segments starts
  mutable std::size_t first_segment = 0;  // the segment of the first piece
  mutable bool continues = false;
  mutable std::vector<std::int32_t> piece_lengths;          // the pieces, cut at the block's borders
  mutable std::vector<std::int32_t> piece_segment_lengths;  // the whole length of each piece's segment
  mutable std::int64_t first_piece_start = 0;               // where the first piece's segment starts

  // Where each segment of this process's block starts, and each piece's segment: worked out
  // from the lengths when first asked for (most descriptors are never asked).
  const std::vector<std::int64_t>& segment_starts() const {
    if (my_starts.size() != my_lengths.size()) prefix(my_lengths, my_first_start, my_starts);
    return my_starts;
  }
  const std::vector<std::int64_t>& starts_of_pieces() const {
    if (piece_starts.size() != piece_segment_lengths.size())
      prefix(piece_segment_lengths, first_piece_start, piece_starts);
    return piece_starts;
  }
  // Both, where they are known already.
  void set_starts(std::vector<std::int64_t> segments, std::vector<std::int64_t> pieces) const {
    my_starts = std::move(segments);
    piece_starts = std::move(pieces);
  }
  // Every process's pieces, and the segments it owns, as ranges of segment numbers (one per
  // process, so that per-segment values reach the pieces in one exchange with nothing asked).
  mutable std::vector<Range> piece_ranges, owned_ranges;

  std::size_t pieces() const { return piece_lengths.size(); }
  // The segments this process owns, as pieces [owned_begin(), pieces()).
  std::size_t owned_begin() const { return continues ? 1 : 0; }

 private:
  static void prefix(const std::vector<std::int32_t>& lengths, std::int64_t first,
                     std::vector<std::int64_t>& starts) {
    starts.resize(lengths.size());
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      starts[i] = first;
      first += lengths[i];
    }
  }
  mutable std::vector<std::int64_t> my_starts, piece_starts;
};

}  // namespace cvl::mpi
