// cvl-mpi's Backend: each operation in terms of the local CVL's operations on this process's
// blocks, and of the exchanges in exchange.hpp. One file per operation family (ARCHITECTURE.md).
#pragma once

#include <algorithm>
#include <array>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "exchange.hpp"
#include "cvl/backend.hpp"
#include "handles.hpp"
#include "host_block.hpp"
#include "layout.hpp"

namespace cvl::mpi {

class MpiBackend final : public Backend, private DistributedIo {
 public:
  explicit MpiBackend(const BackendOptions& options);
  ~MpiBackend() override;
  std::string name() const override { return "mpi"; }

  Vector upload(Type type, const void* data, std::size_t length) override;
  void download(const Vector& v, std::size_t first, std::size_t count, void* out) override;
  Vector elementwise(vcode::Op op, Type type, std::span<Vector> operands) override;
  Vector random(Vector bounds, RandomStream& stream) override;
  Vector scan(vcode::Op op, Vector v, const Segdes& sd) override;
  Vector reduce(vcode::Op op, Vector v, const Segdes& sd) override;
  Vector permute(vcode::Op op, PermuteOperands operands) override;
  Vector extract(Vector v, Vector indices, const Segdes& sd) override;
  Vector replace(Vector v, Vector indices, Vector values, const Segdes& sd) override;
  Vector distribute(Vector values, const Segdes& sd) override;
  Vector index(Vector starts, Vector strides, const Segdes& sd) override;
  Vector rank(vcode::Op op, Vector v, const Segdes& sd) override;
  std::pair<Vector, Segdes> pack(Vector v, Vector flags, const Segdes& sd) override;
  Segdes make_segdes(Vector lengths) override;
  Vector segment_lengths(const Segdes& sd) override;
  // A descriptor past the longest vector is made, and what is made over it streamed by each
  // process's local CVL (README.md: "Past the longest vector").
  std::uint64_t longest_descriptor_total() const override {
    return std::numeric_limits<std::uint64_t>::max();
  }
  std::unique_ptr<PreparedSuperOp> prepare(const vcode::SuperOp& op) override;
  Vector fused(const PreparedSuperOp& op, std::span<FusedOperand> operands,
               const Length& domain) override;
  using Backend::fused;

  void wait_for_device() override {
    local_->wait_for_device();
    comm_.barrier();
  }
  // What the local CVL holds pending is computed too, as on cvl-cpu (a timer then times the same work).
  void complete_pending_work() override {
    local_->complete_pending_work();
    comm_.barrier();
  }
  BackendStats stats() const override;
  DistributedIo* distributed_io() override { return this; }
  // This process's blocks: the local CVL's memory.
  VectorMemory* vector_memory() override { return local_->vector_memory(); }

 private:
  bool is_io_root() const override { return comm_.rank() == 0; }
  void share_from_io_root(std::string& bytes) override { comm_.broadcast(bytes, 0); }
  std::vector<std::uint64_t> gather_counters(std::span<const std::uint64_t> local) override;
  bool error_is_local() const override { return failed_alone_; }
  void before_reporting_alone() override;
  bool all_failed_alone() override;
  void abort_all(int status) override { comm_.abort(status); }

  // Marks an error that leaves an operation without going through Communicator::agree as seen
  // by this process alone.
  class Operation {
   public:
    explicit Operation(MpiBackend& b) : b_(b), unwinding_(std::uncaught_exceptions()) {
      b_.comm_.forget_error();
    }
    ~Operation() {
      if (std::uncaught_exceptions() > unwinding_ && !b_.comm_.last_error_agreed())
        b_.failed_alone_ = true;
    }

   private:
    MpiBackend& b_;
    int unwinding_;
  };

  Range block(std::size_t n) const { return block_of(n, comm_.rank(), comm_.size()); }
  // An operation that would store `n` elements, or read that many as memory, past the longest
  // vector: refused as on cvl-cpu, though each process's block may be shorter.
  void refuse_stored(std::size_t n) {
    if (n > kMaxVectorLength) comm_.throw_agreed(vector_too_long_message(n));
  }
  // What waits to be streamed over a long descriptor (INDEX, DIST, elementwise, FUSED) is
  // stored at once where the local CVL computes each result as it runs (--eager).
  void refuse_unless_streamed(std::size_t n) {
    if (!lazy_) refuse_stored(n);
  }
  Vector wrap(Vector local, std::size_t n) const {
    const Type t = local.type;
    return Vector{t, n, std::make_shared<DistributedVector>(std::move(local))};
  }
  // The local block of a handle, moved out when this handle is its only owner.
  static Vector take_local(Vector&& v);
  static const Vector& local_of(const Vector& v);
  static const DistributedSegdes& stored(const Segdes& sd);
  // On one process: the descriptor of the local CVL's `local`, whose lengths (by segment) are
  // `lengths`, or are asked of the local CVL when `lengths` is empty.
  Segdes solo_segdes(Segdes local, Vector lengths = {});
  Segdes make_segdes_everywhere(Vector lengths);
  // A descriptor's parts with its host arrays (made now on one process, if not yet).
  const DistributedSegdes& parts(const Segdes& sd);
  // The descriptor's parts when it is aligned (handles.hpp), else null; no host arrays made.
  static const DistributedSegdes* aligned_parts(const Segdes& sd);

  // The local block on the host, and back.
  template <class T>
  std::vector<T> host(const Vector& local) {
    const HostView<T> elements(*local_, local);  // copied in one pass, with no zeros written first
    return {elements.span().begin(), elements.span().end()};
  }
  template <class T>
  Vector from_host(Type type, const std::vector<T>& values) {
    return local_->upload(type, values.data(), values.size());
  }
  // Runs `f`, then every process learns whether any had a cvl::Error (agree).
  template <class F>
  auto agreed(F&& f) -> decltype(f()) {
    if constexpr (std::is_void_v<decltype(f())>) {
      agreed([&] { return (f(), true); });
    } else {
      std::optional<std::string> error;
      decltype(f()) result{};
      try {
        result = f();
      } catch (const Error& e) {
        error = e.what();
      }
      comm_.agree(error);
      return result;
    }
  }
  // A per-segment array held in this process's block of segments, fetched for the segments of
  // this process's pieces.
  template <class T>
  std::vector<T> for_pieces(const std::vector<T>& my_block_of_segments, std::size_t segments,
                            const DistributedSegdes& d) {
    return remap(comm_, my_block_of_segments, blocks_of(segments, comm_.size()), d.piece_ranges);
  }
  // The same for a distributed per-segment vector: a local vector of one element per piece, read
  // from and written to the local CVL's memory.
  template <class Bits>
  Vector to_pieces(const Vector& per_segment, std::size_t segments, const DistributedSegdes& d) {
    auto out = HostVector<Bits>::fresh(*local_, per_segment.type, d.pieces());
    const HostView<Bits> mine(*local_, local_of(per_segment));
    remap(comm_, mine.span(), block(segments).begin, blocks_of(segments, comm_.size()), d.piece_ranges,
          out.data());
    return std::move(out).finish();
  }
  // One value per piece (a reduction, PACK's counts): those of the segments this process owns,
  // moved to the segments' own blocks.
  template <class T>
  std::vector<T> owned_to_segment_blocks(const std::vector<T>& per_piece,
                                         const DistributedSegdes& d, std::size_t segments) {
    const std::vector<T> owned(per_piece.begin() + d.owned_begin(), per_piece.end());
    return remap(comm_, owned, d.owned_ranges, blocks_of(segments, comm_.size()));
  }
  std::vector<std::uint32_t> element_positions(const char* op, const Vector& indices,
                                               const Segdes& sd, std::optional<std::string>& error);
  // Runs `f`; the message of the cvl::Error it throws, if any (for the exchange that follows to
  // carry: Communicator::exchange_counts).
  template <class F>
  static std::optional<std::string> error_of(F&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  }
  static PermuteOperands local_operands(vcode::Op op, const PermuteOperands& o);
  static PermuteOperands take_local_operands(vcode::Op op, PermuteOperands&& o);
  template <class Bits>
  std::optional<Vector> gather_by_window(const PermuteOperands& o, std::size_t into_total);

  // Gathers from short sources, and the gathers and permutes of what they read (short_gather.cpp).
  std::optional<Vector> permute_read_at(vcode::Op op, PermuteOperands& o);
  std::shared_ptr<const ReplicatedSource> replicated(const Vector& source);
  Vector read_at(std::shared_ptr<const ReplicatedSource> source, Vector positions);
  Vector moved_positions(vcode::Op op, const Vector& positions, const PermuteOperands& o);
  bool indices_within(const Vector& indices, std::size_t length);
  // The positions moved lately, found again while the positions, the index and the descriptors
  // live: the fields read at one set of positions and moved by one index move them once.
  struct MovedPositions {
    vcode::Op op = vcode::Op::Permute;
    std::weak_ptr<Storage> positions, indices, source_segdes, dest_segdes, result;
    std::size_t result_length = 0;
  };
  std::array<MovedPositions, 8> moved_;
  std::size_t next_moved_ = 0;
  // Indices found within a length lately (or not), found again while they live.
  struct CheckedIndices {
    std::weak_ptr<Storage> indices;
    std::size_t length = 0;
    bool within = false;
  };
  std::array<CheckedIndices, 4> checked_;
  std::size_t next_checked_ = 0;
  // The block a scatter writes into (of `block_size` elements): the defaults' elements (in place
  // where this handle is their only one), else new ones, zero where `zeroed` (a flagged
  // scatter's unwritten positions) and otherwise each written by the scatter.
  template <class Bits>
  HostVector<Bits> scatter_target(Type type, Vector&& defaults, std::size_t block_size, bool zeroed) {
    if (defaults.storage) return HostVector<Bits>::changing(*local_, take_local(std::move(defaults)));
    auto out = HostVector<Bits>::fresh(*local_, type, block_size);
    if (zeroed) std::fill_n(out.data(), block_size, Bits{0});
    return out;
  }
  // The records a REPLACE or RANK delivered to this process, written into its block (of a vector
  // of `total` elements): into the elements of `v` (REPLACE), or new ones (RANK: every position
  // gets one).
  template <class Bits>
  Vector place_records(const std::vector<Placed<Bits>>& arrived, Vector&& v, std::size_t total) {
    const Range mine = block(total);
    const Type type = v.storage ? v.type : Type::Int;
    auto target = scatter_target<Bits>(type, std::move(v), mine.size(), false);
    for (const Placed<Bits>& r : arrived) target[r.at - mine.begin] = r.value;
    return std::move(target).finish();
  }
  // The local CVL's descriptor of one segment of `length` elements.
  Segdes one_segment(std::size_t length) {
    return local_->make_segdes(
        from_host(Type::Int, std::vector<std::int32_t>{static_cast<std::int32_t>(length)}));
  }
  std::optional<Vector> permute_in_place(vcode::Op op, const PermuteOperands& o,
                                         const DistributedSegdes& along,
                                         const DistributedSegdes& into);

  // Where the last permute of the general path sent each element, found again while its index,
  // flags and descriptors live (their storage never changes while it does): a program that
  // moves a tuple of fields by one index (bh) works out the positions, and a scatter's plan,
  // once for all of them.
  struct PermuteRoute {
    PermuteRoute(vcode::Op op, const PermuteOperands& o, const Segdes& along, const Segdes& into)
        : op(op), indices(o.indices.storage), flags(o.flags.storage), along(along.storage),
          into(into.storage) {}
    bool same(vcode::Op other, const PermuteOperands& o, const Segdes& a, const Segdes& i) const {
      return other == op && indices.lock() == o.indices.storage && flags.lock() == o.flags.storage &&
             along.lock() == a.storage && into.lock() == i.storage;
    }
    vcode::Op op;
    std::weak_ptr<Storage> indices, flags, along, into;
    std::optional<HostVector<std::uint32_t>> positions;
    std::optional<ScatterPlan> plan;
  };
  std::unique_ptr<PermuteRoute> route_;
  // What the last gather by window (gather_by_window) read, found again while its index lives:
  // the bounds of this process's reads, its index rebased to them (one vector for every field,
  // so that the local CVL sees one index again) and the local descriptors. Reads that all fall in
  // this process's own block of the source are rebased to the block, which is then read in place.
  struct GatherWindow {
    struct Bounds {
      std::uint64_t begin = 0, end = 0, reads = 0;
      std::uint32_t bad = 0;
      std::uint32_t in_block = 0;
    };
    std::weak_ptr<Storage> indices;
    std::size_t source_length = 0;
    Bounds bounds;
    Vector rebased;
    Segdes along, window_segdes;
  };
  std::unique_ptr<GatherWindow> window_;

  Communicator comm_;
  std::unique_ptr<Backend> local_;
  FloatRankOrder float_rank_;
  // Descriptors of at most this many segments are made from all the lengths on every process.
  static constexpr std::size_t kAllLengthsMax = std::size_t{1} << 16;
  std::size_t all_lengths_max_;
  bool failed_alone_ = false;
  bool lazy_;  // the local CVL leaves elementwise results pending (BackendOptions::lazy_elementwise)
};

}  // namespace cvl::mpi
