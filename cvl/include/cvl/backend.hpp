// The vector machine the interpreter talks to: the contract every CVL backend implements.
//
// Conventions:
// - Ownership: operands are given to the backend, whether passed by value or as handles in a
//   `std::span` or an operand struct (PermuteOperands, FusedOperand): the backend may move from
//   them, and the caller must not use those handles after the call (their state is
//   unspecified). The interpreter moves last-use operands in, so a backend may reuse an operand's
//   storage for its result when `storage.use_count() == 1` and the type and length match; it
//   must otherwise never modify an operand's data (value semantics). Descriptors and vectors
//   passed by const reference are only read.
// - Shapes: the interpreter has already checked operand types, lengths and segdes compatibility
//   (spec/VCODE.md §7: vm/exec_vector.cpp, vm/exec_fused.cpp). A backend need not check them
//   again: in debug builds the registry wraps every backend in a CheckingBackend
//   (cvl/checking_backend.hpp), which checks each call against the rules (cvl/shape_rules.hpp).
//   The backend checks what depends on the data (indices, divisors, segment lengths) and throws
//   cvl::Error with a short message, never crashes. A broken contract (a shape the interpreter
//   should have checked) is a cvl::InternalError, a failing device a cvl::DeviceError
//   (cvl/errors.hpp).
// - Lengths (cvl/length.hpp): a handle's lengths (Vector::length, Segdes::segments and total)
//   are known on the host, or pending: counted by the device, with a host bound, resolved at the
//   backend's next synchronization. A host backend's lengths are always known. A backend that
//   returns pending lengths gives every result whose length equals an operand's length (or a
//   descriptor's segments or total) that very Length, so that the interpreter can tell equal
//   lengths apart without waiting. The interpreter checks shapes on known lengths at once, and
//   defers a check that involves a pending length to the next synchronization (naming the
//   instruction that made it); a backend must stay memory-safe on operands whose lengths turn out
//   to disagree (it reads no element past a buffer's bound). Length::get() is the one place the
//   host waits for a count.
// - FUSED: the interpreter prepares every superoperator once, after loading (prepare); each
//   `FUSED n` then runs that plan, so nothing is planned, uploaded or generated per call.
// - Segmented operations follow spec/CVL.md; indices are relative to their segment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cvl/random.hpp"
#include "cvl/types.hpp"
#include "vcode/op.hpp"
#include "vcode/superop.hpp"
#include "vcode/superop_analysis.hpp"
#include "vcode/superop_stages.hpp"

namespace cvl {

// Which order FLOAT ranks use (spec/CVL.md §6): IEEE total order, or the x86-64 reference's.
enum class FloatRankOrder : std::uint8_t { Correct, Legacy };

// Whether cvl-cpu's vector memory asks the kernel for transparent huge pages (2 MiB a fault).
// Auto: on, except where the kernel hands free memory back to a hypervisor (free page reporting),
// which makes a huge page after an idle spell far dearer than 512 small ones (bench/RESULTS.md).
enum class HugePages { Auto, On, Off };

// How a backend is made; each backend reads the fields it knows. A command line's options become
// these in two parts: those every backend shares (threads, float_rank, device, max_memory), and
// those of each backend folder's option group (cvl/backend_option_group.hpp), whose defaults
// for a command line may differ from the ones below (fast_math, lazy_elementwise).
struct BackendOptions {
  int threads = 0;  // 0 = all cores; 1 = sequential and deterministic
  FloatRankOrder float_rank = FloatRankOrder::Correct;
  // GPU backends: the device number (vinterp -0..-9); operations whose inputs are all on the
  // host and at most `host_threshold` elements long run on the host (-1: the backend's
  // default, 0: everything on the device); `sync_each_op` waits for the device after every
  // operation so that a fault is reported at the instruction that caused it (--sync).
  int device = 0;
  long long host_threshold = -1;
  bool sync_each_op = false;
  // Bytes of live vector storage the backend may hold (--max-memory); an allocation that would
  // pass it is a cvl::Error before anything is allocated. 0: the backend's default (cvl-cpu and
  // cuda-emulated: 3/4 of physical memory, cvl/memory_limit.hpp; cuda: the device's memory).
  std::uint64_t max_memory = 0;
  // cvl-cpu: transcendental functions from a vector library with at most 1 ulp of error (SLEEF)
  // instead of the C library's, whose results the classic interpreter prints (--math fast; a
  // command line's default with more than one thread). Other backends ignore it.
  bool fast_math = false;
  // cvl-cpu (and cvl-mpi's blocks) and cvl-cuda: elementwise ops on long vectors are computed
  // where their result is first read, a chain of them in one pass (cvl-cpu/src/pending/
  // lazy_elementwise.hpp, cvl-cuda/src/pending_expression.hpp); the same values. A command line
  // turns it on (off with --eager).
  // complete_pending_work() computes what is pending.
  bool lazy_elementwise = false;
  // cuda-emulated: 0 runs each device operation as it is queued; any other value runs the device
  // on a thread of its own, each operation starting after a delay drawn from this seed, with new
  // device memory poisoned (--emulate-async SEED; cvl-cuda/README.md). Other backends ignore it.
  std::uint64_t emulate_async_seed = 0;
  // cvl-cpu (and cvl-mpi's blocks): huge pages for the vector memory (--huge-pages). The memory is
  // the process's, so the last backend made decides for all. Other backends ignore it.
  HugePages huge_pages = HugePages::Auto;
  // cvl-mpi: a MAKE_SEGDES of at most this many segments gathers all the lengths on every process
  // (one collective, work for every segment everywhere); a larger one finds each process's pieces
  // from its own block of lengths. -1: the backend's default. The tests set 0 to run the
  // general path on small descriptors. Other backends ignore it.
  long long all_lengths_max = -1;

  bool operator==(const BackendOptions&) const = default;
};

// Counters a backend keeps for `vinterp --profile`; cumulative since the backend was made.
struct BackendStats {
  std::uint64_t kernel_launches = 0;
  std::uint64_t host_syncs = 0;      // waits for the device (a value had to reach the host)
  std::uint64_t guesses_failed = 0;  // synchronizations that found a guessed bound too small
  std::uint64_t bytes_to_device = 0;
  std::uint64_t bytes_to_host = 0;
  // GPU backends: copies and fills queued on the device besides kernels (a host-to-device copy,
  // a device-to-device copy, a memset); a synchronization's own reads are not counted here.
  std::uint64_t device_copies = 0;
  // GPU backends: bytes of device memory read and written by kernels, library calls, copies and
  // fills on the device (host transfers not counted), each from a formula for what the operation
  // touches: a count, not a measurement.
  std::uint64_t device_bytes_moved = 0;
  std::uint64_t device_bytes_in_use = 0;
  std::uint64_t host_bytes_in_use = 0;  // cvl-cpu's vector storage (--trace-json's memory track)
  std::uint64_t device_bytes_peak = 0;
  std::uint64_t fused_plans = 0;  // superoperators planned (prepare); FUSED calls plan nothing
  // Distributed backends: this process's point-to-point and collective messages and their bytes.
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  // Distributed backends: collective calls (the same on every process, which all make each).
  std::uint64_t collectives = 0;
};

// One operand of FUSED: a vector, or a segment descriptor where the superoperator declares
// SEGDES.
struct FusedOperand {
  Vector vector;
  Segdes segdes;
};

// Operands of the permute family (PERMUTE, DPERMUTE, FPERMUTE, BPERMUTE, BFPERMUTE,
// DFPERMUTE); unused members stay empty. For PERMUTE only `source_segdes` is set.
struct PermuteOperands {
  Vector values;
  Vector indices;
  Vector flags;     // FPERMUTE, BFPERMUTE, DFPERMUTE
  Vector defaults;  // DPERMUTE, DFPERMUTE
  Segdes source_segdes;
  Segdes dest_segdes;  // all but PERMUTE
};

// A superoperator planned by one backend (Backend::prepare) for any number of FUSED calls: the
// definition and its analysis, and in the derived class what the backend makes of them (cvl-cpu's
// node kernels; cvl-cuda's node array on the device and compiled kernel). Only the backend that
// made it may run it.
class DeviceClock;
class Speculation;
class OperationSites;
class DistributedIo;
class HostMemory;
class VectorMemory;

class PreparedSuperOp {
 public:
  explicit PreparedSuperOp(const vcode::SuperOp& op, std::vector<std::uint32_t> outputs_ = {})
      : definition(op),
        outputs(std::move(outputs_)),
        analysis(vcode::analyze(op, outputs)),
        nested(vcode::has_nested_reduction(op)) {}
  virtual ~PreparedSuperOp() = default;
  PreparedSuperOp(const PreparedSuperOp&) = delete;
  PreparedSuperOp& operator=(const PreparedSuperOp&) = delete;

  const vcode::SuperOp definition;  // a copy: the plan does not depend on the program's lifetime
  // Nodes whose values are written out besides the root's (vcode::analyze), in that order.
  const std::vector<std::uint32_t> outputs;
  const vcode::SuperOpAnalysis analysis;
  // The definition has nested reductions: the plan is a StagedSuperOp (cvl/staged_superop.hpp) or
  // the backend's one-pass form of it.
  const bool nested;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // Host transfers: only for constants and I/O. `data` holds `length` elements of host_t<type>.
  virtual Vector upload(Type type, const void* data, std::size_t length) = 0;
  // Copies elements [first, first + count) of `v` to `out` (host_t<v.type> elements).
  virtual void download(const Vector& v, std::size_t first, std::size_t count, void* out) = 0;

  // Elementwise ops (Family::Elementwise): 1 to 3 operands of equal length. `type` is the
  // instruction's type (for SELECT the type of the two value operands).
  virtual Vector elementwise(vcode::Op op, Type type, std::span<Vector> operands) = 0;
  // RAND: result[i] = stream.next() % bounds[i], in index order. A zero bound is an error.
  virtual Vector random(Vector bounds, RandomStream& stream) = 0;

  virtual Vector scan(vcode::Op op, Vector v, const Segdes& sd) = 0;
  virtual Vector reduce(vcode::Op op, Vector v, const Segdes& sd) = 0;
  virtual Vector permute(vcode::Op op, PermuteOperands operands) = 0;

  virtual Vector extract(Vector v, Vector indices, const Segdes& sd) = 0;
  virtual Vector replace(Vector v, Vector indices, Vector values, const Segdes& sd) = 0;
  virtual Vector distribute(Vector values, const Segdes& sd) = 0;
  virtual Vector index(Vector starts, Vector strides, const Segdes& sd) = 0;
  virtual Vector rank(vcode::Op op, Vector v, const Segdes& sd) = 0;  // RANK_UP / RANK_DOWN
  // PACK: the flagged elements and the segdes of per-segment counts.
  virtual std::pair<Vector, Segdes> pack(Vector v, Vector flags, const Segdes& sd) = 0;

  // MAKE_SEGDES (negative lengths are an error) and LENGTHS.
  virtual Segdes make_segdes(Vector lengths) = 0;
  virtual Vector segment_lengths(const Segdes& sd) = 0;
  // The largest total a descriptor may have (the interpreter refuses a larger one at
  // MAKE_SEGDES): the longest vector, unless the backend streams what is made over a longer
  // descriptor and refuses only to store it (cvl-cpu).
  virtual std::uint64_t longest_descriptor_total() const { return kMaxVectorLength; }

  // FUSED. prepare plans a superoperator (the definition must pass vcode::check_superop);
  // BackendStats::fused_plans counts the calls.
  virtual std::unique_ptr<PreparedSuperOp> prepare(const vcode::SuperOp& op) = 0;
  // Evaluates a superoperator this backend prepared over `operands` (the interpreter has checked
  // their kinds and lengths, vcode/superop.hpp); `domain` is the number of elements the
  // expression is evaluated at (the length of an elementwise operand or a descriptor's total).
  virtual Vector fused(const PreparedSuperOp& op, std::span<FusedOperand> operands,
                       const Length& domain) = 0;
  // prepare, then fused: plans on every call (tests, benchmarks; the interpreter prepares once).
  Vector fused(const vcode::SuperOp& op, std::span<FusedOperand> operands, const Length& domain) {
    return fused(*prepare(op), operands, domain);
  }

  // LENGTH: an INT vector of one element holding `n` (a device backend keeps a pending count on
  // the device: no wait).
  virtual Vector length_value(const Length& n) {
    const auto count = static_cast<std::int32_t>(n.get());
    return upload(Type::Int, &count, 1);
  }

  // Waits until all queued work is done and reads back what is pending: every pending count is
  // resolved and the first deferred fault raised (a no-op for host backends).
  virtual void synchronize() {}
  // How many times the host has waited for the device so far (BackendStats::host_syncs), read
  // cheaply: the interpreter asks after every instruction whether a wait has happened.
  virtual std::uint64_t synchronizations() const { return 0; }
  // Waits until all queued work is done and reads nothing back, for timing (--profile,
  // --trace-json): unlike synchronize() it changes nothing a later instruction would otherwise
  // wait for. Work a host backend defers to where its result is first read is not queued: it
  // stays deferred, so that a profiled run holds the memory a run without the profile holds.
  virtual void wait_for_device() {}
  // wait_for_device, after computing what a host backend defers (cvl-cpu's pending elementwise
  // results): START_TIMER and STOP_TIMER, so that a timed region holds its own instructions' work.
  virtual void complete_pending_work() { wait_for_device(); }
  virtual BackendStats stats() const { return {}; }

  // What a backend may do beyond the vector operations, each an interface of its own (below):
  // null where it does not. cvl::speculation_of(b) and the like give one that does what a single
  // host process does instead.
  virtual DeviceClock* device_clock() { return nullptr; }
  virtual Speculation* speculation() { return nullptr; }
  virtual OperationSites* operation_sites() { return nullptr; }
  virtual DistributedIo* distributed_io() { return nullptr; }
  virtual HostMemory* host_memory() { return nullptr; }
  virtual VectorMemory* vector_memory() { return nullptr; }
};

// The device's own clock, for --trace-json: stamp_device_clock(k) queues timestamp k (0, 1 or 2;
// 0 is the origin) behind the work queued so far; after Backend::wait_for_device(),
// device_clock_seconds(k) is its time since the origin.
class DeviceClock {
 public:
  virtual ~DeviceClock() = default;
  virtual void stamp_device_clock(int mark) = 0;
  virtual double device_clock_seconds(int mark) = 0;
};

// Speculation (off unless the caller can run a region again): a device backend may size a buffer
// for a guess where a count has no bound, instead of waiting for it. A synchronization that finds
// a guess too small throws SpeculationFailed, with the guesses and the faults since the last
// certain point dropped; the caller goes back to that point, turns speculation off until the next
// one, and runs again.
class Speculation {
 public:
  virtual ~Speculation() = default;
  virtual void allow_speculation(bool allowed) = 0;
  // Whether no guess is outstanding: everything computed so far is certain.
  virtual bool settled() const = 0;
  // The caller may come back to this point (settled) after a failed guess: what the backend
  // learned since then for its guesses is dropped with the region, since the region counts again.
  virtual void mark_certain_point() = 0;
  // Makes everything certain (a synchronization if a guess is outstanding), before an effect
  // that cannot be taken back: output, files, timers.
  virtual void settle() = 0;
};

// The instruction whose operations come next (the interpreter's program counter), told before
// each instruction: a fault found later than its operation is raised as a DeferredError naming
// it, and a count with no bound is guessed from what the same instruction counted before.
class OperationSites {
 public:
  virtual ~OperationSites() = default;
  virtual void operation_site(std::uint32_t site) = 0;
};

// Backends whose vectors are this process's own memory (cvl-cpu): a host caller (cvl-mpi, over
// its local blocks) reads and writes elements in place instead of copying them with download and
// upload.
class HostMemory {
 public:
  virtual ~HostMemory() = default;
  // The elements of `v` (host_t<v.type>), computed first where they are pending. Valid while the
  // caller holds a handle to v's storage and gives that storage to no op.
  virtual const void* host_elements(const Vector& v) = 0;
  // A new vector of `length` elements whose memory (`*elements`) the caller writes in full (BOOL
  // as 0 or 1) before giving the vector to any op.
  virtual Vector new_host_vector(Type type, std::size_t length, void** elements) = 0;
  // The elements of `v` to overwrite in place (BOOL as 0 or 1), where the caller's handle is the
  // only one to its storage; else nullptr.
  virtual void* writable_elements(Vector& v) = 0;
  // Whether every element of the INT vector `indices`, read as unsigned (a negative one is huge),
  // is below `length`. Where so, that is kept with the vector: a gather by it from a source that
  // long then needs no check of its own.
  virtual bool indices_below(const Vector& indices, std::size_t length) = 0;
};

// Backends that count the bytes of vector memory they hold (--profile's peak columns): vectors,
// descriptors and the buffers an operation holds while it runs, on the host or the device; a
// result computed where it is first read counts from then on. A distributed backend counts this
// process's own.
class VectorMemory {
 public:
  virtual ~VectorMemory() = default;
  virtual std::uint64_t bytes_in_use() const = 0;
  // The most bytes in use at once since the last call (at the first, since the backend was
  // made); the next interval starts with what is in use now.
  virtual std::uint64_t take_peak_bytes() = 0;
};

// Distributed backends (cvl-mpi): every process runs the interpreter over the same program.
class DistributedIo {
 public:
  virtual ~DistributedIo() = default;
  // Whether this process performs the program's effects on the outside world (stdin/stdout/
  // stderr, files, SPAWN, timers' values, --profile/--trace output, error messages): false on
  // every process of a distributed run but one.
  virtual bool is_io_root() const = 0;
  // Makes `bytes` on every process equal to the io root's (a broadcast: a collective, every
  // process calls it at the same point; a no-op for one process).
  virtual void share_from_io_root(std::string& bytes) = 0;
  // Every process's `local` counters, concatenated in process order (a collective; one process:
  // `local` itself).
  virtual std::vector<std::uint64_t> gather_counters(std::span<const std::uint64_t> local) = 0;
  // After an error escaped the interpreter: whether this process alone saw it (the others do not
  // know of it, and would wait for this one). Errors the interpreter raises itself and errors a
  // distributed backend agreed on are seen by every process: false.
  virtual bool error_is_local() const = 0;
  // Called before a process prints an error it saw alone: a distributed backend gives a
  // lower-numbered process that failed too the time to print first and end every process, so
  // that one message is printed.
  virtual void before_reporting_alone() = 0;
  // After an error this process saw alone: waits a moment for every other process to say that
  // it failed alone too (out of memory in its own part of a vector, as processes usually fail
  // together). True when all did: then they end together, as after an agreed error, without
  // abort_all; false when one did not come (it may be waiting for this one).
  virtual bool all_failed_alone() = 0;
  // Ends every process of a distributed run now, with `status` (MPI_Abort), after this process
  // printed its message; returns for a single process (the caller then exits with status as
  // usual).
  virtual void abort_all(int status) = 0;
};

// The backend's capability, or one that does what a single host process does: nothing to guess
// (always settled), one process that is the io root.
Speculation& speculation_of(Backend& backend);
DistributedIo& distributed_io_of(Backend& backend);

}  // namespace cvl
