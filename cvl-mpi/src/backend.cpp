// The operations that stay on each process's block (elementwise work, FUSED, RAND) and the host
// transfers; the others are in their family's file.
#include "backend.hpp"

#include <chrono>
#include <thread>

#include "cvl/op_dispatch.hpp"
#include "cvl/staged_superop.hpp"
#include "cvl/unfused.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "cvl_mpi/cvl_mpi.hpp"

namespace cvl::mpi {
namespace {

// One thread per process unless asked otherwise: processes share the machine's cores.
BackendOptions local_options(BackendOptions options) {
  if (options.threads == 0) options.threads = 1;
  return options;
}

// A superoperator whose every operand is read at the element it computes runs on each block as
// it is; one that reads per segment or folds is run op by op over the distributed operations.
struct MpiPrepared : PreparedSuperOp {
  MpiPrepared(const vcode::SuperOp& op, std::unique_ptr<PreparedSuperOp> l)
      : PreparedSuperOp(op), local(std::move(l)) {
    blockwise = !analysis.folds();
    for (auto role : analysis.roles)
      if (role == vcode::NodeRole::SegmentLeaf || role == vcode::NodeRole::Descriptor)
        blockwise = false;
  }
  std::unique_ptr<PreparedSuperOp> local;
  bool blockwise = false;
};

}  // namespace

MpiBackend::MpiBackend(const BackendOptions& options)
    : local_(make_cpu_backend(local_options(options))),
      float_rank_(options.float_rank),
      all_lengths_max_(options.all_lengths_max >= 0 ? static_cast<std::size_t>(options.all_lengths_max)
                                                    : kAllLengthsMax),
      lazy_(options.lazy_elementwise) {}

// The caches hold vectors of the local CVL, which must outlive them.
MpiBackend::~MpiBackend() {
  route_.reset();
  window_.reset();
}

Vector MpiBackend::take_local(Vector&& v) {
  auto* d = static_cast<DistributedVector*>(v.storage.get());
  if (!d) throw InternalError("cvl-mpi: a vector without storage");
  if (v.storage.use_count() == 1) return std::move(d->local);
  return d->local;
}

const Vector& MpiBackend::local_of(const Vector& v) {
  auto* d = static_cast<const DistributedVector*>(v.storage.get());
  if (!d) throw InternalError("cvl-mpi: a vector without storage");
  return d->local;
}

const DistributedSegdes& MpiBackend::stored(const Segdes& sd) {
  auto* d = static_cast<const DistributedSegdes*>(sd.storage.get());
  if (!d) throw InternalError("cvl-mpi: a segment descriptor without storage");
  return *d;
}

const DistributedSegdes& MpiBackend::parts(const Segdes& sd) {
  const DistributedSegdes* d = &stored(sd);
  if (!d->host_pieces) {  // aligned, made without them: each segment of the block is one whole piece
    const std::size_t segments = sd.segments.get();
    d->my_lengths = host<std::int32_t>(local_of(d->lengths));
    d->my_first_start = d->first_piece_start = static_cast<std::int64_t>(block(sd.total.get()).begin);
    d->first_segment = block(segments).begin;
    d->continues = false;
    d->piece_lengths = d->my_lengths;
    d->piece_segment_lengths = d->my_lengths;
    d->piece_ranges = d->owned_ranges = blocks_of(segments, comm_.size());
    d->host_pieces = true;
  }
  return *d;
}

const DistributedSegdes* MpiBackend::aligned_parts(const Segdes& sd) {
  const DistributedSegdes& d = stored(sd);
  return d.aligned ? &d : nullptr;
}

Vector MpiBackend::upload(Type type, const void* data, std::size_t length) {
  Operation op(*this);
  const Range mine = block(length);
  const auto* bytes = static_cast<const char*>(data);
  return wrap(local_->upload(type, bytes ? bytes + mine.begin * element_size(type) : nullptr,
                             mine.size()),
              length);
}

void MpiBackend::download(const Vector& v, std::size_t first, std::size_t count, void* out) {
  Operation op(*this);
  refuse_stored(v.length.get());
  if (comm_.size() == 1) return local_->download(local_of(v), first, count, out);
  const std::size_t n = v.length.get();
  const Range want{first, first + count};
  std::vector<std::size_t> counts(comm_.size());
  for (int q = 0; q < comm_.size(); ++q)
    counts[q] = intersect(block_of(n, q, comm_.size()), want).size();
  const Range mine = intersect(block(n), want);
  const std::size_t width = element_size(v.type);
  std::vector<char> part(mine.size() * width);
  auto read_mine = [&] {
    if (!mine.empty())
      local_->download(local_of(v), mine.begin - block(n).begin, mine.size(), part.data());
  };
  // Reading a block may fail on this process alone: elements written or computed only when first
  // read (a vector of one value, a pending result) may pass --max-memory. Every process learns of
  // it before the gather; a single element never waits so.
  if (n > 1)
    agreed(read_mine);
  else
    read_mine();
  with_element_bits(v.type, [&]<class Bits>() {
    comm_.allgatherv(reinterpret_cast<const Bits*>(part.data()), counts, static_cast<Bits*>(out));
  });
}

Vector MpiBackend::elementwise(vcode::Op op, Type type, std::span<Vector> operands) {
  Operation guard(*this);
  const std::size_t n = operands[0].length.get();
  refuse_unless_streamed(n);
  std::vector<Vector> locals;
  for (auto& v : operands) locals.push_back(take_local(std::move(v)));
  // An INT division may trap on some process's block only (cvl/op_dispatch.hpp's rule).
  const bool may_trap = visit_elementwise(op, type, []<vcode::Op, class Sem, Type kType>() {
    return checks_divisor<Sem> && kType == Type::Int;
  });
  if (!may_trap) return wrap(local_->elementwise(op, type, locals), n);
  return wrap(agreed([&] { return local_->elementwise(op, type, locals); }), n);
}

// Every process skips the stream to its block, draws its block's numbers and skips the rest, so
// the generator's state stays the same everywhere and the numbers are the classic's.
Vector MpiBackend::random(Vector bounds, RandomStream& stream) {
  Operation guard(*this);
  const std::size_t n = bounds.length.get();
  refuse_stored(n);
  const Range mine = block(n);
  Vector local = take_local(std::move(bounds));
  if (comm_.size() == 1)  // the local CVL checks the bounds before drawing, at the same positions
    return wrap(agreed([&] { return local_->random(std::move(local), stream); }), n);
  agreed([&] {
    const HostView<std::int32_t> b(*local_, local);
    for (std::size_t i = 0; i < b.size(); ++i)
      if (b[i] == 0)
        throw Error("RAND: bound 0 at position " + std::to_string(mine.begin + i));
  });
  stream.discard(mine.begin);
  Vector out = local_->random(std::move(local), stream);
  stream.discard(n - mine.end);
  return wrap(std::move(out), n);
}

std::unique_ptr<PreparedSuperOp> MpiBackend::prepare(const vcode::SuperOp& op) {
  if (vcode::has_nested_reduction(op)) return std::make_unique<StagedSuperOp>(*this, op);
  return std::make_unique<MpiPrepared>(op, local_->prepare(op));
}

Vector MpiBackend::fused(const PreparedSuperOp& prepared, std::span<FusedOperand> operands,
                         const Length& domain) {
  if (prepared.nested)
    return static_cast<const StagedSuperOp&>(prepared).run(*this, operands, domain);
  Operation guard(*this);
  const auto& op = static_cast<const MpiPrepared&>(prepared);
  if (op.blockwise) refuse_unless_streamed(domain.get());
  // On one process a superoperator that reads per segment or folds is the local one as well.
  const bool solo = comm_.size() == 1;
  if (!op.blockwise && !solo) return run_unfused(*this, op.definition, operands, domain);
  const std::size_t n = domain.get();
  std::vector<FusedOperand> locals(operands.size());
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].vector.storage) locals[i].vector = take_local(std::move(operands[i].vector));
    if (operands[i].segdes.storage) locals[i].segdes = stored(operands[i].segdes).local;
  }
  if (solo) {  // the result is as long as the local one (per element or per segment)
    Vector out = agreed([&] { return local_->fused(*op.local, locals, domain); });
    const std::size_t length = out.length.get();
    return wrap(std::move(out), length);
  }
  const Length local_domain = block(n).size();
  if (!op.analysis.divides) return wrap(local_->fused(*op.local, locals, local_domain), n);
  return wrap(agreed([&] { return local_->fused(*op.local, locals, local_domain); }), n);
}

// Processes that fail alone (out of memory in their blocks) usually fail together: process r
// waits r fifth-seconds, so that the lowest one prints and its MPI_Abort ends the others first.
void MpiBackend::before_reporting_alone() {
  std::this_thread::sleep_for(std::chrono::milliseconds(200) * comm_.rank());
}

// Long enough for processes that failed at the same instruction to come, one slower than the
// others included; a process that does not is waiting for this one, and is aborted after it.
bool MpiBackend::all_failed_alone() { return comm_.all_arrive_within(std::chrono::seconds(2)); }

Vector MpiBackend::segment_lengths(const Segdes& sd) { return stored(sd).lengths; }

BackendStats MpiBackend::stats() const {
  BackendStats s = local_->stats();
  s.messages_sent = comm_.messages_sent();
  s.bytes_sent = comm_.bytes_sent();
  s.collectives = comm_.collectives();
  return s;
}

std::vector<std::uint64_t> MpiBackend::gather_counters(std::span<const std::uint64_t> local) {
  std::vector<std::size_t> counts(comm_.size(), local.size());
  std::vector<std::uint64_t> out(local.size() * comm_.size());
  comm_.allgatherv(local.data(), counts, out.data());
  return out;
}

}  // namespace cvl::mpi

namespace cvl {
std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options) {
  return std::make_unique<mpi::MpiBackend>(options);
}
}  // namespace cvl
