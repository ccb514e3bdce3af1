// The cvl-cuda backend object: public methods decide where the operation runs (the interpreter
// has checked the shapes; in debug builds the registry's CheckingBackend checks them again).
// Residency: an operation whose inputs all have a host copy and are at most
// host_threshold elements long runs on the host with cvl-cpu's code, without a launch; otherwise
// its inputs move to the device (once: the device copy is kept on the handle) and the dispatch
// layer runs it there. Faults found by kernels are deferred to the next synchronization (or the
// end of the operation with sync_each_op).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cvl/registry.hpp"
#include "cvl/staged_superop.hpp"
#include "cvl/unfused.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "cvl_cuda/command_line_options.hpp"
#include "cvl_cuda/cvl_cuda.hpp"
#include "device.hpp"
#include "dispatch.hpp"
#include "fold_group.hpp"
#include "fused.hpp"
#include "handles.hpp"
#include "jit.hpp"
#include "kernels/scalar_apply.hpp"
#include "library.hpp"
#include "pending_builder.hpp"
#include "residency.hpp"
#include "tuning.hpp"
#include "vcode/superop_key.hpp"

namespace cvl::CVL_CUDA_NS {
namespace {

using vcode::Op;

std::string index_fault_message(Op op, std::int32_t index, std::uint64_t position,
                                std::uint32_t length) {
  return cvl::index_fault_message(vcode::spelling(op), index, position, length);
}

// A superoperator prepared by cvl-cuda: cvl-cpu's plan for small host-resident calls, the
// interpreter's plan for the device and, on a GPU, its compiled kernel (made at the first device
// call). The device state is filled in by calls, hence mutable.
class CudaSuperOp final : public PreparedSuperOp {
 public:
  CudaSuperOp(const vcode::SuperOp& op, std::unique_ptr<PreparedSuperOp> host)
      : PreparedSuperOp(op), host_plan(std::move(host)), interpreter(fused::plan(op, analysis)) {}

  const std::unique_ptr<PreparedSuperOp> host_plan;
  mutable fused::Interpreter interpreter;
#if CVL_CUDA_REAL
  mutable jit::CompiledKernel kernel;
#endif
};

class CudaBackend final : public Backend,
                          private Residency,
                          private DeviceClock,
                          private Speculation,
                          private OperationSites,
                          private VectorMemory {
 public:
  explicit CudaBackend(const BackendOptions& options)
      : Residency(options), float_rank_(options.float_rank), lazy_(options.lazy_elementwise) {}

  ~CudaBackend() override {
    try {
      device_->synchronize();  // pending faults of a finished program are not reported
    } catch (...) {
    }
  }

  std::string name() const override { return CVL_CUDA_REAL ? "cuda" : "cuda-emulated"; }

  // A superoperator's reduction streams over a descriptor of any total (run_fused); a vector of
  // that length is refused where it would be stored (new_device_vector).
  std::uint64_t longest_descriptor_total() const override { return ~std::uint64_t{0}; }

  // ---- transfers ------------------------------------------------------------------------

  Vector upload(Type type, const void* data, std::size_t length) override {
    if (small(length)) return wrap_host(cpu_->upload(type, data, length));
    Vector v = new_device_vector(type, length);
    device_->copy_to_device(device_pointer(v), data, length * element_size(type));
    if (type == Type::Bool)
      dispatch::normalize_bools(*device_, static_cast<std::uint8_t*>(device_pointer(v)), length);
    return done(std::move(v));
  }

  void download(const Vector& v, std::size_t first, std::size_t count, void* out) override {
    computed(v);
    VectorStorage& s = storage(v);
    if (!s.on_host() && s.capacity > cuda_tuning::kHostCacheMaxElements) {
      const std::size_t size = element_size(v.type);
      device_->copy_to_host(out, static_cast<const std::byte*>(s.device.get()) + first * size,
                            count * size);
      return;
    }
    cpu_->download(host_copy(v), first, count, out);  // small: the host copy is kept
  }

  Vector length_value(const Length& n) override {
    if (n.known()) return Backend::length_value(n);
    Vector out = new_device_vector(Type::Int, 1);
    dispatch::copy_count(*device_, count_cell(n), static_cast<std::int32_t*>(device_pointer(out)));
    storage(out).element_count = n;
    return done(std::move(out));
  }

  // ---- elementwise and RAND -------------------------------------------------------------

  Vector elementwise(Op op, Type type, std::span<Vector> operands) override {
    if (on_host_path(operands)) {
      std::vector<cvl::Vector> host;
      for (Vector& v : operands) host.push_back(take_host(std::move(v)));
      return wrap_host(cpu_->elementwise(op, type, host));
    }
    if (std::optional<Vector> out = pending_elementwise(op, type, operands)) return std::move(*out);
    const Length n = operands[0].length;
    const Type out_type = to_type(vcode::result_type_of(op, to_keyword(type)));
    kernels::TypedInput inputs[3];
    std::size_t limit = ~std::size_t{0};  // what every operand holds
    for (std::size_t i = 0; i < operands.size(); ++i) {
      inputs[i] = {device_pointer(operands[i]), operands[i].type};
      limit = std::min(limit, capacity(operands[i]));
    }
    FaultWord fault;
    if (type == Type::Int && (op == Op::Div || op == Op::Mod))
      fault =
          device_->fault_word([](std::uint64_t word) { return std::string(cvl_sem::trap_message(word)); });
    Vector out = result_for(operands, out_type, n);
    dispatch::elementwise(*device_, op, type, inputs, device_pointer(out),
                          extent(n, std::min(limit, capacity(out))), fault.get());
    return done(std::move(out));
  }

  Vector random(Vector bounds, RandomStream& stream) override {
    // The generator is sequential and host-side, so RAND prints the numbers cvl-cpu prints; the
    // result moves to the device when it meets a large vector.
    host_copy(bounds);
    return wrap_host(cpu_->random(take_host(std::move(bounds)), stream));
  }

  // ---- scans and reductions -------------------------------------------------------------

  Vector scan(Op op, Vector v, const Segdes& sd) override {
    if (on_host_path({&v}, {&sd}))
      return wrap_host(cpu_->scan(op, take_host(std::move(v)), host_segdes(sd)));
    const SegmentView map = device_map(sd);
    const void* in = device_pointer(v);
    const Type type = v.type;
    const Length n = v.length;
    const std::size_t limit = std::min(map.total, capacity(v));
    Vector out = reuse_or_allocate(std::move(v), type, n);  // the scan reads first
    library::scan(*device_, op, type, in, device_pointer(out), segment_keys(sd, map),
                  std::min(limit, capacity(out)));
    return done(std::move(out));
  }

  Vector reduce(Op op, Vector v, const Segdes& sd) override {
    if (on_host_path({&v}, {&sd}))
      return wrap_host(cpu_->reduce(op, take_host(std::move(v)), host_segdes(sd)));
    if (const std::shared_ptr<SegdesStorage> described = summed_lengths(op, v, sd)) {
      // Its total, wrapped to 32 bits as the sum would be: no launch where the host knows it.
      if (!described->total.known())
        return described->total_value.storage ? described->total_value
                                              : length_value(described->total);
      const auto sum =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(described->total.get()));
      return wrap_host(cpu_->upload(Type::Int, &sum, 1));
    }
    if (std::optional<Vector> waiting = wait_in_fold_group(op, v, sd)) return std::move(*waiting);
    if (std::optional<Vector> folded = fold_pending(op, v, sd)) return std::move(*folded);
    SegmentView map = device_map(sd, false);  // a small reduction needs no per-element index
    const std::size_t n = std::min(map.total, capacity(v));
    if (library::reduce_reads_index(n)) map = device_map(sd);
    Vector out = new_device_vector(v.type, segdes(sd).segments);
    library::reduce(*device_, op, v.type, device_pointer(v), device_pointer(out),
                    segment_keys(sd, map), n);
    return done(std::move(out));
  }

  // ---- permutes -------------------------------------------------------------------------

  Vector permute(Op op, PermuteOperands o) override {
    const bool scatter = vcode::info(op).shape == vcode::Shape::Scatter;
    const bool flagged = vcode::permute_has_flags(op);
    const bool with_default = vcode::permute_has_defaults(op);
    const Segdes& dest_sd = op == Op::Permute ? o.source_segdes : o.dest_segdes;
    const SegdesStorage& dest = segdes(dest_sd);

    std::vector<const Vector*> inputs{&o.values, &o.indices};
    if (flagged) inputs.push_back(&o.flags);
    if (with_default) inputs.push_back(&o.defaults);
    if (on_host_path(inputs, {&o.source_segdes, &dest_sd})) {
      PermuteOperands h;
      h.values = take_host(std::move(o.values));
      h.indices = take_host(std::move(o.indices));
      if (flagged) h.flags = take_host(std::move(o.flags));
      if (with_default) h.defaults = take_host(std::move(o.defaults));
      h.source_segdes = host_segdes(o.source_segdes);
      if (op != Op::Permute) h.dest_segdes = host_segdes(o.dest_segdes);
      return wrap_host(cpu_->permute(op, std::move(h)));
    }

    // The walked descriptor (a scatter's source, a gather's destination) may get its index
    // written by this launch (walked_map); the other is read at whole segments only.
    const Segdes& walked_sd = scatter ? o.source_segdes : dest_sd;
    const Segdes& addressed_sd = scatter ? dest_sd : o.source_segdes;
    const SegmentView addressed_map = device_map(addressed_sd, false);
    const Type type = o.values.type;
    // A scatter walks the source elements (values, indices, flags), a gather the destination's
    // (indices, flags; the result); what the walk reads at each element may be made in place.
    const kernels::ElementOperand values =
        scatter ? element_operand(o.values) : kernels::ElementOperand{device_pointer(o.values)};
    const kernels::ElementOperand indices = element_operand(o.indices);
    const auto* flags =
        flagged ? static_cast<const std::uint8_t*>(device_pointer(o.flags)) : nullptr;
    const Length& walked = segdes(walked_sd).total;
    std::size_t limit = std::min(readable(o.indices), allocation_size(walked));
    if (scatter) limit = std::min(limit, readable(o.values));
    if (flagged) limit = std::min(limit, capacity(o.flags));
    // The message reads the faulting index and the length of the segment it addressed.
    const FaultWord fault =
        device_->fault_word([this, op, idx = o.indices, scatter, src = o.source_segdes,
                             dst = dest_sd](std::uint64_t position) {
          const Segdes& walked_sd = scatter ? src : dst;
          const Segdes& addressed = scatter ? dst : src;
          std::size_t k = segment_containing(walked_sd, position);
          return index_fault_message(op, read_element<std::int32_t>(idx, position), position,
                                     segment_length(addressed, k));
        });
    Vector out;
    if (with_default) {
      out = unshared(std::move(o.defaults));
    } else if (scatter) {
      out = new_device_vector(type, dest.total);
      if (op == Op::FPermute) device_->fill_bytes(device_pointer(out), 0, storage(out).bytes());
    } else {
      out = new_device_vector(type, dest.total);
      limit = std::min(limit, capacity(out));
    }
    // Scatters write, and gathers read, where the descriptor they index through says.
    const bool safe = scatter ? holds({{capacity(out), &dest.total}})
                              : holds({{capacity(o.values), &segdes(o.source_segdes).total}});
    if (safe) {
      WalkedMap walk = walked_map(walked_sd, extent(walked, limit));
      const SegmentView& source_map = scatter ? walk.view : addressed_map;
      const SegmentView& dest_map = scatter ? addressed_map : walk.view;
      dispatch::permute(*device_, op, type, values, indices, flags, source_map, dest_map,
                        extent(walked, limit), device_pointer(out), fault.get(), walk.record());
      keep_recorded_index(walked_sd, walk);
    }
    return done(std::move(out));
  }

  // What an operand read at each walked element is to the kernel: a pending INDEX or DIST alone
  // over stored operands is made in place from its per-segment vectors (no launch stores it
  // first; pending_expression.hpp), any other operand is its buffer, computed.
  kernels::ElementOperand element_operand(const Vector& v) {
    using Kind = vcode::SuperOpNode::Kind;
    if (const std::unique_ptr<PendingExpression>& e = storage(v).pending) {
      const std::vector<vcode::SuperOpNode>& nodes = e->definition.nodes;
      const vcode::SuperOpNode& root = nodes.back();
      auto operand_at = [&](std::uint32_t node) -> const FusedOperand* {
        return nodes[node].kind == Kind::Operand ? &e->operands[nodes[node].operand] : nullptr;
      };
      const bool index = root.kind == Kind::Index;
      if (index || root.kind == Kind::Dist) {
        const FusedOperand* per_segment = operand_at(root.args[0]);
        const FusedOperand* strides = index ? operand_at(root.args[1]) : nullptr;
        const FusedOperand* sd = operand_at(root.args[index ? 2 : 1]);
        if (per_segment && sd && (strides || !index)) {
          const Length& segments = segdes(sd->segdes).segments;
          // A per-segment vector shorter than the descriptor: computed, as the op run at once
          // would be, which then reports it.
          if (holds({{capacity(per_segment->vector), &segments}}) &&
              (!strides || holds({{capacity(strides->vector), &segments}}))) {
            kernels::ElementOperand made;
            made.per_segment = device_pointer(per_segment->vector);
            if (strides)
              made.strides = static_cast<const std::int32_t*>(device_pointer(strides->vector));
            // Its per-element index where one is built; else each element's segment is searched.
            made.sd = device_map(sd->segdes, segdes(sd->segdes).index.allocated());
            return made;
          }
        }
      }
    }
    return {device_pointer(v)};
  }
  // The elements a kernel may read of `v`: its buffer's, or a pending one's length.
  std::size_t readable(const Vector& v) {
    if (storage(v).pending) return allocation_size(v.length);
    return capacity(v);
  }

  // ---- one value per segment ------------------------------------------------------------

  Vector extract(Vector v, Vector indices, const Segdes& sd) override {
    const SegdesStorage& s = segdes(sd);
    if (on_host_path({&v, &indices}, {&sd}))
      return wrap_host(
          cpu_->extract(take_host(std::move(v)), take_host(std::move(indices)), host_segdes(sd)));
    const SegmentView map = device_map(sd, false);
    Vector out = new_device_vector(v.type, s.segments);
    const FaultWord fault = segment_index_fault(Op::Extract, indices, sd);
    if (holds({{capacity(v), &s.total}}))
      dispatch::extract(*device_, v.type, device_pointer(v),
                        static_cast<const std::int32_t*>(device_pointer(indices)), map,
                        extent(s.segments, std::min(capacity(indices), capacity(out))),
                        device_pointer(out), fault.get());
    return done(std::move(out));
  }

  Vector replace(Vector v, Vector indices, Vector values, const Segdes& sd) override {
    if (on_host_path({&v, &indices, &values}, {&sd}))
      return wrap_host(cpu_->replace(take_host(std::move(v)), take_host(std::move(indices)),
                                     take_host(std::move(values)), host_segdes(sd)));
    const SegmentView map = device_map(sd, false);
    const Type type = v.type;
    const FaultWord fault = segment_index_fault(Op::Replace, indices, sd);
    const void* replacement = device_pointer(values);
    const std::size_t limit = std::min(capacity(indices), capacity(values));
    Vector out = unshared(std::move(v));
    if (holds({{capacity(out), &segdes(sd).total}}))
      dispatch::replace(*device_, type, static_cast<const std::int32_t*>(device_pointer(indices)),
                        replacement, map, extent(segdes(sd).segments, limit),
                        device_pointer(out), fault.get());
    return done(std::move(out));
  }

  Vector distribute(Vector values, const Segdes& sd) override {
    const SegdesStorage& s = segdes(sd);
    if (on_host_path({&values}, {&sd}))
      return wrap_host(cpu_->distribute(take_host(std::move(values)), host_segdes(sd)));
    if (generator_waits(sd)) {
      PendingBuilder builder(s.total, compute_operand());
      const Type type = values.type;
      const std::uint32_t per_segment = builder.leaf(std::move(values));
      builder.distribute(type, per_segment, builder.descriptor(sd));
      return pending_or_computed(builder.finish());
    }
    return distribute_now(values, sd);
  }

  Vector index(Vector starts, Vector strides, const Segdes& sd) override {
    const SegdesStorage& s = segdes(sd);
    if (on_host_path({&starts, &strides}, {&sd}))
      return wrap_host(cpu_->index(take_host(std::move(starts)), take_host(std::move(strides)),
                                   host_segdes(sd)));
    if (generator_waits(sd)) {
      PendingBuilder builder(s.total, compute_operand());
      const std::uint32_t start = builder.leaf(std::move(starts));
      const std::uint32_t stride = builder.leaf(std::move(strides));
      builder.index(start, stride, builder.descriptor(sd));
      return pending_or_computed(builder.finish());
    }
    return index_now(starts, strides, sd);
  }

  // DIST and INDEX on the device, at once. The walk records the descriptor's per-element index
  // where a later use would build it (walked_map).
  Vector distribute_now(const Vector& values, const Segdes& sd) {
    const SegdesStorage& s = segdes(sd);
    Vector out = new_device_vector(values.type, s.total);
    if (holds({{capacity(values), &s.segments}})) {
      const Extent elements = extent(s.total, capacity(out));
      WalkedMap walk = walked_map(sd, elements);
      dispatch::distribute(*device_, values.type, device_pointer(values), walk.view, elements,
                           device_pointer(out), walk.record());
      keep_recorded_index(sd, walk);
    }
    return done(std::move(out));
  }
  Vector index_now(const Vector& starts, const Vector& strides, const Segdes& sd) {
    const SegdesStorage& s = segdes(sd);
    Vector out = new_device_vector(Type::Int, s.total);
    if (holds({{capacity(starts), &s.segments}, {capacity(strides), &s.segments}})) {
      const Extent elements = extent(s.total, capacity(out));
      WalkedMap walk = walked_map(sd, elements);
      dispatch::index(*device_, static_cast<const std::int32_t*>(device_pointer(starts)),
                      static_cast<const std::int32_t*>(device_pointer(strides)), walk.view,
                      elements, static_cast<std::int32_t*>(device_pointer(out)), walk.record());
      keep_recorded_index(sd, walk);
    }
    return done(std::move(out));
  }

  // ---- rank, pack, descriptors ----------------------------------------------------------

  Vector rank(Op op, Vector v, const Segdes& sd) override {
    if (v.length.bound() > 0xFFFFFFFFull && v.length.bound() != PendingCount::kUnbounded)
      throw Error(std::string(vcode::spelling(op)) + ": vector too long to rank");
    if (on_host_path({&v}, {&sd}))
      return wrap_host(cpu_->rank(op, take_host(std::move(v)), host_segdes(sd)));
    const SegmentView map = device_map(sd);
    const Type type = v.type;
    const void* values = device_pointer(v);
    const Length n = v.length;
    const std::size_t limit = std::min(map.total, capacity(v));
    // The sort keys are made from the values first, so an INT input may hold the ranks.
    Vector out = type == Type::Int ? reuse_or_allocate(std::move(v), Type::Int, n)
                                   : new_device_vector(Type::Int, n);
    dispatch::rank(*device_, op == Op::RankDown, type, float_rank_, values, segment_keys(sd, map),
                   extent(n, std::min(limit, capacity(out))),
                   static_cast<std::int32_t*>(device_pointer(out)));
    return done(std::move(out));
  }

  std::pair<Vector, Segdes> pack(Vector v, Vector flags, const Segdes& sd) override {
    const SegdesStorage& s = segdes(sd);
    if (on_host_path({&v, &flags}, {&sd})) {
      auto [data, packed] =
          cpu_->pack(take_host(std::move(v)), take_host(std::move(flags)), host_segdes(sd));
      return {wrap_host(std::move(data)), wrap_host_segdes(std::move(packed))};
    }
    SegmentView map = device_map(sd, false);
    const std::size_t n = std::min({map.total, capacity(v), capacity(flags)});
    // The segments end at the last element read: with a guessed count, the descriptor's bound
    // and the operands' capacities may differ (device.hpp).
    map.total = n;
    const auto* flag = static_cast<const std::uint8_t*>(device_pointer(flags));
    // The result's length is a count the device computes; PACK keeps at most what it is given.
    const Length kept = pending_count(n);
    auto packed = std::make_shared<SegdesStorage>();
    packed->segments = s.segments;
    packed->total = kept;
    packed->lengths = new_device_vector(Type::Int, s.segments);
    packed->offsets = DeviceBuffer(device_, (map.segments + 1) * sizeof(std::int64_t));
    packed->total_value = new_device_vector(Type::Int, 1);
    storage(packed->total_value).element_count = kept;
    Vector out = new_device_vector(v.type, kept);
    dispatch::pack(*device_, v.type, device_pointer(v), flag, map, extent(s.total, n),
                   device_pointer(out), static_cast<std::int32_t*>(device_pointer(packed->lengths)),
                   packed->offsets.as<std::int64_t>(), count_cell(kept),
                   static_cast<std::int32_t*>(device_pointer(packed->total_value)));
    note_if_small(packed->lengths);
    note_if_small(packed->total_value);
    return {done(std::move(out)), described_by_lengths(std::move(packed))};
  }

  Segdes make_segdes(Vector lengths) override {
    if (std::shared_ptr<SegdesStorage> known = storage(lengths).described.lock())
      return Segdes{known->segments, known->total, std::move(known)};  // no work, no launch
    if (const std::optional<Length> count = storage(lengths).element_count;
        count && !count->known() && count->bound() <= kLargestLength &&
        !storage(lengths).on_host()) {
      // One segment whose length is a count pending on the device (below 2^31, so its INT is
      // never negative): that count is the total, and the offsets are 0 and a copy of it.
      auto s = std::make_shared<SegdesStorage>();
      s->segments = 1;
      s->total = *count;
      s->offsets = DeviceBuffer(device_, 2 * sizeof(std::int64_t));
      device_->fill_bytes(s->offsets.get(), 0, sizeof(std::int64_t));
      device_->copy_on_device(s->offsets.as<std::int64_t>() + 1, count_cell(*count),
                              sizeof(std::int64_t));
      s->lengths = std::move(lengths);
      if (device_->sync_each_op()) device_->synchronize();
      return described_by_lengths(std::move(s));
    }
    if (threshold_ > 0 && storage(lengths).on_host()) {
      // Host lengths (the usual case: a few segments): cvl-cpu builds and checks it, no sync.
      auto s = std::make_shared<SegdesStorage>();
      s->host = cpu_->make_segdes(storage(lengths).host);
      s->segments = s->host.segments;
      s->total = s->host.total;
      s->lengths = std::move(lengths);
      s->uniform = uniform_length(s->lengths);
      return described_by_lengths(std::move(s));
    }
    // Device lengths: the offsets on the device, the total a count the device computes (no
    // bound is known), a negative length a deferred fault.
    auto s = std::make_shared<SegdesStorage>();
    s->segments = lengths.length;
    const Extent segments = extent(lengths.length, capacity(lengths));
    const auto* length = static_cast<const std::int32_t*>(device_pointer(lengths));
    s->offsets = DeviceBuffer(device_, (segments.bound + 1) * sizeof(std::int64_t));
    const FaultWord fault = device_->fault_word([this, lengths](std::uint64_t position) {
      return "MAKE_SEGDES: negative segment length " +
             std::to_string(read_element<std::int32_t>(lengths, position)) + " at position " +
             std::to_string(position);
    });
    s->total = pending_count(PendingCount::kUnbounded);
    library::offsets_from_lengths(*device_, length, segments, s->offsets.as<std::int64_t>(),
                                  count_cell(s->total), fault.get());
    s->lengths = std::move(lengths);
    // --sync: the total is known, and a negative length raised, here.
    if (device_->sync_each_op()) device_->synchronize();
    return described_by_lengths(std::move(s));
  }

  Vector segment_lengths(const Segdes& sd) override { return segdes(sd).lengths; }

  std::unique_ptr<PreparedSuperOp> prepare(const vcode::SuperOp& op) override {
    ++fused_plans_;
    if (vcode::has_nested_reduction(op)) return std::make_unique<StagedSuperOp>(*this, op);
    return std::make_unique<CudaSuperOp>(op, cpu_->prepare(op));
  }

  using Backend::fused;
  Vector fused(const PreparedSuperOp& op, std::span<FusedOperand> operands,
               const Length& domain) override {
    if (op.nested) return static_cast<const StagedSuperOp&>(op).run(*this, operands, domain);
    return run_fused(static_cast<const CudaSuperOp&>(op), operands, domain);
  }

  // What is deferred besides the device's queue: pending results (pending_expression.hpp), each
  // computed (but those longer than a vector, which exist only to be folded). The reductions
  // waiting in fold groups first: their pass leaves the values they fold pending, which are then
  // computed only where something else holds them.
  void complete_pending_work() override {
    const std::vector<std::weak_ptr<VectorStorage>> results = std::exchange(pending_results_, {});
    for (const std::weak_ptr<VectorStorage>& result : results)
      if (const std::shared_ptr<VectorStorage> s = result.lock(); s && s->fold_group)
        compute_pending(*s);
    for (const std::weak_ptr<VectorStorage>& result : results)
      if (const std::shared_ptr<VectorStorage> s = result.lock();
          s && s->pending && s->pending->domain.bound() <= kMaxVectorLength)
        compute_pending(*s);
    wait_for_device();
  }

  void synchronize() override { device_->synchronize(); }
  std::uint64_t synchronizations() const override { return device_->host_syncs(); }
  void wait_for_device() override { device_->wait_idle(); }
  BackendStats stats() const override {
    BackendStats s = device_->stats();
    s.fused_plans = fused_plans_;
    return s;
  }
  DeviceClock* device_clock() override { return Device::has_clock ? this : nullptr; }
  Speculation* speculation() override { return this; }
  OperationSites* operation_sites() override { return this; }
  VectorMemory* vector_memory() override { return this; }

 private:
  // The device's memory and that of the small vectors on the host path; the peak is the sum of
  // the two's (above the true one by at most the host path's, which holds only short vectors).
  std::uint64_t bytes_in_use() const override {
    return device_->stats().device_bytes_in_use + cpu_->vector_memory()->bytes_in_use();
  }
  std::uint64_t take_peak_bytes() override {
    return device_->take_peak_bytes() + cpu_->vector_memory()->take_peak_bytes();
  }
  void stamp_device_clock(int mark) override { device_->mark_time(mark); }
  double device_clock_seconds(int mark) override { return device_->seconds_from_origin(mark); }
  void allow_speculation(bool allowed) override { device_->allow_speculation(allowed); }
  bool settled() const override { return device_->settled(); }
  void mark_certain_point() override { device_->mark_certain_point(); }
  void settle() override {
    if (!device_->settled()) device_->synchronize();
  }
  void operation_site(std::uint32_t site) override { device_->operation_site(site); }

  // The live descriptor whose lengths `v` are, where `op` sums them all (+_REDUCE INT over one
  // segment): the sum is that descriptor's total. Flattened code sums LENGTHS so to size its next
  // level; the total is often known on the host (no launch, and the result is there for what
  // follows: MAKE_SEGDES of it, the test of an IF), else pending (one copy of its count, which
  // MAKE_SEGDES then takes as its total).
  std::shared_ptr<SegdesStorage> summed_lengths(Op op, const Vector& v, const Segdes& sd) {
    if (op != Op::PlusReduce || v.type != Type::Int) return nullptr;
    const Length& segments = segdes(sd).segments;
    if (!segments.known() || segments.get() != 1) return nullptr;
    std::shared_ptr<SegdesStorage> described = storage(v).described.lock();
    if (!described || described->lengths.storage != v.storage) return nullptr;
    return described;
  }

  static constexpr std::size_t kLargestLength = 0x7FFFFFFF;  // the largest INT

  // The fault word of EXTRACT/REPLACE: position k is segment k.
  FaultWord segment_index_fault(Op op, const Vector& indices, const Segdes& sd) {
    return device_->fault_word([this, op, indices, sd](std::uint64_t k) {
      return index_fault_message(op, read_element<std::int32_t>(indices, k), k,
                                 segment_length(sd, k));
    });
  }

  // ---- pending results (pending_expression.hpp) -----------------------------------------

  // Whether an op over `n` elements waits: long enough (a count with no bound is waited for, as
  // the op run at once would wait for it to size its result).
  bool waits(const Length& n) {
    return lazy_ && allocation_size(n, ~std::uint64_t{0}) >= kPendingMin;
  }
  // The same for a DIST or INDEX over `sd`, but for one whose walk would record the descriptor's
  // per-element index (walked_map) and short enough to store (not streamed): it runs at once, so
  // that the later uses of the descriptor read the index rather than build it with a launch.
  bool generator_waits(const Segdes& sd) {
    const SegdesStorage& s = segdes(sd);
    if (!waits(s.total)) return false;
    return !(s.needs_index() && !s.index.allocated() &&
             allocation_size(s.total) <= fused::pending_stream_elements());
  }
  std::function<void(const Vector&)> compute_operand() {
    return [this](const Vector& v) { computed(v); };
  }

  // An elementwise op that cannot trap, over long operands, as a pending result; nothing where
  // it runs at once. Consumes the operands then.
  std::optional<Vector> pending_elementwise(Op op, Type type, std::span<Vector> operands) {
    const Length n = operands[0].length;
    if (!waits(n) || vcode::elementwise_can_trap(op, to_keyword(type))) return std::nullopt;
    PendingBuilder builder(n, compute_operand());
    std::uint32_t args[3] = {0, 0, 0};
    for (std::size_t a = 0; a < operands.size(); ++a)
      args[a] = builder.operand(std::move(operands[a]));
    builder.elementwise(op, type, std::span<const std::uint32_t>(args, operands.size()));
    return pending_or_computed(builder.finish());
  }

  // The vector of a finished expression: pending, or computed at once where pending would be
  // the only holder of two or more vectors as long (more memory than the ops one at a time hold).
  Vector pending_or_computed(PendingExpression&& expression) {
    const std::size_t n = allocation_size(expression.domain, ~std::uint64_t{0});
    std::size_t held_only_here = 0;
    for (const FusedOperand& o : expression.operands)
      if (o.vector.storage && o.vector.length.bound() >= n && o.vector.storage.use_count() == 1)
        ++held_only_here;
    if (held_only_here >= 2) return evaluate_pending(expression);
    const Type type = to_type(expression.definition.root().result);
    const Length domain = expression.domain;
    auto s = std::make_shared<VectorStorage>(type, n);
    s->pending = std::make_unique<PendingExpression>(std::move(expression));
    if (pending_results_.size() >= prune_pending_at_) {
      std::erase_if(pending_results_, [](const std::weak_ptr<VectorStorage>& r) {
        const std::shared_ptr<VectorStorage> held = r.lock();
        return !held || !held->waiting();
      });
      prune_pending_at_ = std::max<std::size_t>(1024, 2 * pending_results_.size());
    }
    pending_results_.push_back(s);
    return Vector{type, domain, std::move(s)};
  }

  // A reduction of a pending result that nothing else holds: one FUSED evaluation with the fold
  // at the root, streamed in chunks when long (fused::pending_stream_elements), so that the
  // values are never stored. A cheap generator that others hold too is made again here only when
  // streamed: shorter, it is stored once for all its readers (a launch each to make it again).
  // Nothing otherwise; consumes `v` then.
  std::optional<Vector> fold_pending(Op op, Vector& v, const Segdes& sd) {
    const VectorStorage& s = storage(v);
    if (!s.pending) return std::nullopt;
    if (v.storage.use_count() != 1 &&
        (!cheap_to_recompute(*s.pending) ||
         allocation_size(v.length, ~std::uint64_t{0}) <= fused::pending_stream_elements()))
      return std::nullopt;
    const Type type = v.type;
    PendingBuilder builder(v.length, compute_operand());
    const std::uint32_t values = builder.operand(std::move(v));
    builder.fold(op, type, values, builder.descriptor(sd));
    PendingExpression expression = builder.finish();
    return evaluate_pending(expression);
  }

  // A pending DIST or INDEX alone runs as the op itself (its walk records the per-element index
  // for later uses); any other expression through FUSED.
  Vector generated_now(PendingExpression& expression) {
    using Kind = vcode::SuperOpNode::Kind;
    const std::vector<vcode::SuperOpNode>& nodes = expression.definition.nodes;
    const vcode::SuperOpNode& root = nodes.back();
    auto operand_at = [&](std::uint32_t node) -> const FusedOperand* {
      return nodes[node].kind == Kind::Operand ? &expression.operands[nodes[node].operand] : nullptr;
    };
    if (root.kind == Kind::Dist)
      if (const FusedOperand *values = operand_at(root.args[0]), *sd = operand_at(root.args[1]);
          values && sd)
        return distribute_now(values->vector, sd->segdes);
    if (root.kind == Kind::Index)
      if (const FusedOperand *starts = operand_at(root.args[0]), *strides = operand_at(root.args[1]),
          *sd = operand_at(root.args[2]);
          starts && strides && sd)
        return index_now(starts->vector, strides->vector, sd->segdes);
    return evaluate_pending(expression);
  }

  Vector evaluate_pending(PendingExpression& expression) {
    const std::shared_ptr<const CudaSuperOp> plan = plan_for(expression.definition);
    return run_fused(*plan, expression.operands, expression.domain, true);
  }

  void compute_pending(VectorStorage& s) override {
    if (s.fold_group) return compute_fold_group(std::shared_ptr<FoldGroup>(s.fold_group));
    std::unique_ptr<PendingExpression> expression = std::move(s.pending);
    Vector values;
    try {
      values = generated_now(*expression);
    } catch (...) {
      s.pending = std::move(expression);  // still pending (a failed guess is run again)
      throw;
    }
    VectorStorage& made = storage(values);
    s.capacity = made.capacity;
    s.device = std::move(made.device);
    s.host = std::move(made.host);
  }

  // ---- fold groups (fold_group.hpp) -----------------------------------------------------

  // A reduction of a long pending result that others hold too, or of an expression over one, as
  // a result waiting in that result's fold group; nothing otherwise (consumes `v` then).
  std::optional<Vector> wait_in_fold_group(Op op, Vector& v, const Segdes& sd) {
    std::optional<Vector> waiting = fold_in_group(op, v, sd, fused::pending_stream_elements());
    if (waiting)
      pending_results_.push_back(std::static_pointer_cast<VectorStorage>(waiting->storage));
    return waiting;
  }

  // Every reduction of `group`, each result that is still held completed.
  void compute_fold_group(const std::shared_ptr<FoldGroup>& group) {
    std::optional<std::vector<Vector>> out;
    if (group->one_pass()) out = folds_in_one_pass(*group);
    if (!out) {
      // Each as it would run alone: the values computed (and stored) for their other readers.
      computed(group->values);
      out.emplace();
      for (const FoldGroup::Fold& f : group->folds) {
        Vector folded = f.over ? pending_vector(*f.over) : group->values;
        out->push_back(reduce(f.op, std::move(folded), f.segments));
        computed(out->back());  // it may wait in the group of another operand of the expression
      }
    }
    group->computed = true;
    group->values = {};
    group->folds.clear();
    for (std::size_t k = 0; k < group->results.size(); ++k)
      if (const std::shared_ptr<VectorStorage> result = group->results[k].lock()) {
        VectorStorage& made = storage((*out)[k]);
        result->capacity = made.capacity;
        result->device = std::move(made.device);
        result->host = std::move(made.host);
        result->fold_group.reset();
      }
  }

  // A pending vector of a copy of `expression`.
  static Vector pending_vector(const PendingExpression& expression) {
    const Type type = to_type(expression.definition.root().result);
    auto s = std::make_shared<VectorStorage>(type, allocation_size(expression.domain));
    s->pending = std::make_unique<PendingExpression>(expression);
    return Vector{type, expression.domain, std::move(s)};
  }

  // The reductions of `group` in one pass over chunks of its values, which stay pending: each
  // chunk of the values evaluated once into a buffer, each expression over them evaluated from
  // that buffer, each reduction folded as streamed_reduce folds a reduction alone. Nothing where
  // a body does not fit the kernels or a descriptor's leaves are short (run op by op, reported
  // there).
  std::optional<std::vector<Vector>> folds_in_one_pass(FoldGroup& group) {
    struct Reader {
      std::shared_ptr<const CudaSuperOp> plan;
      bool compiled = false;
      std::vector<fused::OperandView> views;
      std::vector<std::size_t> of_values;  // the operands that are the values
      FaultWord fault;
    };
    auto reader_of = [&](const PendingExpression& expression, std::size_t& limit) {
      Reader r;
      r.plan = plan_for(expression.definition);
      r.compiled = compiled_kernel(*r.plan);
      const vcode::SuperOpAnalysis& analysis = r.plan->analysis;
      r.views.resize(expression.operands.size());
      for (std::size_t i = 0; i < expression.operands.size(); ++i) {
        const FusedOperand& o = expression.operands[i];
        if (o.segdes.storage) {
          r.views[i].segdes = device_map(o.segdes, false, true);
          if (analysis.operands[i].segdes) limit = std::min(limit, r.views[i].segdes.total);
        } else if (o.vector.storage == group.values.storage) {
          r.views[i].type = o.vector.type;
          r.of_values.push_back(i);
        } else if (o.vector.storage) {
          r.views[i].data = device_pointer(o.vector);
          r.views[i].type = o.vector.type;
          if (analysis.operands[i].elementwise) limit = std::min(limit, capacity(o.vector));
        }
      }
      r.fault = body_fault(analysis);
      return r;
    };
    auto runs = [&](const Reader& r, const PendingExpression& expression) {
      return (r.compiled || r.plan->interpreter.fits()) &&
             leaves_hold(*r.plan, expression.operands);
    };
    const PendingExpression& shared = *storage(group.values).pending;
    std::size_t limit = allocation_size(shared.domain, ~std::uint64_t{0});
    Reader values = reader_of(shared, limit);
    if (!runs(values, shared)) return std::nullopt;
    std::vector<Reader> over(group.folds.size());
    for (std::size_t k = 0; k < group.folds.size(); ++k)
      if (const PendingExpression* e = group.folds[k].over.get()) {
        over[k] = reader_of(*e, limit);
        if (!runs(over[k], *e)) return std::nullopt;
      }
    const Extent items{limit, count_cell(shared.domain)};
    std::vector<Vector> out;
    std::vector<std::unique_ptr<fused::StreamedFold>> folds;
    for (const FoldGroup::Fold& f : group.folds) {
      out.push_back(new_device_vector(f.type, segdes(f.segments).segments));
      folds.push_back(std::make_unique<fused::StreamedFold>(
          device_, f.op, f.type, device_map(f.segments, false, true), device_pointer(out.back())));
    }
    const std::size_t chunk_elements = fused::stream_chunk_elements();
    const std::size_t value_size = element_size(group.values.type);
    DeviceBuffer values_chunk(device_, chunk_elements * value_size);
    std::size_t over_size = 0;
    for (const FoldGroup::Fold& f : group.folds)
      if (f.over) over_size = std::max(over_size, element_size(f.type));
    DeviceBuffer over_chunk(device_, chunk_elements * over_size);
    for (std::size_t first = 0; first < items.bound; first += chunk_elements) {
      const Extent end{std::min(first + chunk_elements, items.bound), items.count};
      evaluate_body(*values.plan, values.compiled, values.views, first, end, values_chunk.get(),
                    values.fault.get());
      for (std::size_t k = 0; k < folds.size(); ++k) {
        if (!over[k].plan) {
          folds[k]->add(first, end, values_chunk.get());
          continue;
        }
        // The body reads the values at element j, here at chunk[j - first].
        const std::byte* chunk = static_cast<const std::byte*>(values_chunk.get());
        for (std::size_t i : over[k].of_values) over[k].views[i].data = chunk - first * value_size;
        evaluate_body(*over[k].plan, over[k].compiled, over[k].views, first, end, over_chunk.get(),
                      over[k].fault.get());
        folds[k]->add(first, end, over_chunk.get());
      }
    }
    for (Vector& v : out) v = done(std::move(v));
    return out;
  }

  // The plan of a definition made at run time, planned once (a program makes few distinct ones).
  std::shared_ptr<const CudaSuperOp> plan_for(const vcode::SuperOp& definition) {
    static constexpr std::size_t kMaxPlans = 4096;
    std::string key = vcode::definition_key(definition);
    if (auto found = pending_plans_.find(key); found != pending_plans_.end()) return found->second;
    if (pending_plans_.size() >= kMaxPlans) pending_plans_.clear();
    vcode::SuperOp op = definition;
    op.id = kFirstPendingPlanId + static_cast<std::uint32_t>(pending_plans_.size());
    auto plan = std::make_shared<const CudaSuperOp>(op, cpu_->prepare(op));
    pending_plans_.emplace(std::move(key), plan);
    return plan;
  }
  // Pending plans are numbered from here in messages and kernel names, past any FCODE file's.
  static constexpr std::uint32_t kFirstPendingPlanId = 1u << 30;

  // ---- FUSED ----------------------------------------------------------------------------

  // `pending`: the expression of pending results (pending_expression.hpp), whose reduction is
  // streamed past fused::pending_stream_elements(), and whose descriptors find each element's
  // segment by searching (a per-element index built for it would cost a launch of its own).
  Vector run_fused(const CudaSuperOp& prepared, std::span<FusedOperand> operands,
                   const Length& domain, bool pending = false) {
    const vcode::SuperOp& op = prepared.definition;
    const vcode::SuperOpAnalysis& analysis = prepared.analysis;
    if (!leaves_hold(prepared, operands))
      return new_device_vector(to_type(analysis.values_type), domain);  // reported next
    bool host = threshold_ > 0 && small(domain);
    for (const FusedOperand& o : operands) {
      if (o.segdes.storage) {
        const SegdesStorage& s = segdes(o.segdes);
        host = host && small(s.total) && small(s.segments) && storage(s.lengths).on_host();
      } else if (o.vector.storage) {
        host = host && small(o.vector.length) && storage(o.vector).on_host();
      }
    }
    if (host) {
      std::vector<FusedOperand> h(operands.size());
      for (std::size_t i = 0; i < operands.size(); ++i) {
        if (operands[i].segdes.storage) h[i].segdes = host_segdes(operands[i].segdes);
        // Taken, not copied: a last-use operand's host copy may become the result.
        if (operands[i].vector.storage) h[i].vector = take_host(std::move(operands[i].vector));
      }
      return wrap_host(cpu_->fused(*prepared.host_plan, h, domain.get()));
    }
    // A long reduction is streamed: its descriptors find each element's segment by searching
    // their offsets, so that no per-element index is built either, and their totals may pass the
    // longest vector.
    const bool reduces = analysis.root_kind == vcode::RootKind::Reduce;
    const std::size_t domain_size =
        allocation_size(domain, reduces ? ~std::uint64_t{0} : kMaxVectorLength);
    const std::size_t stream_past =
        pending ? fused::pending_stream_elements() : fused::stream_chunk_elements();
    const bool streamed = reduces && domain_size > stream_past;
    std::vector<fused::OperandView> views(operands.size());
    std::size_t limit = ~std::size_t{0};  // what every operand read at element j holds
    for (std::size_t i = 0; i < operands.size(); ++i) {
      if (operands[i].segdes.storage) {
        views[i].segdes = device_map(operands[i].segdes, !pending, streamed);
        if (analysis.operands[i].segdes) limit = std::min(limit, views[i].segdes.total);
      } else if (operands[i].vector.storage) {
        views[i].data = device_pointer(operands[i].vector);
        views[i].type = operands[i].vector.type;
        if (analysis.operands[i].elementwise)
          limit = std::min(limit, capacity(operands[i].vector));
      }
    }
    // Compiled kernel first; the interpreter kernel when it holds the body; else op by op, with
    // this backend's own kernels (more launches, the same results).
    const bool compiled = compiled_kernel(prepared);
    if (!compiled && !prepared.interpreter.fits()) return run_unfused(*this, op, operands, domain);
    const Type result = prepared.interpreter.plan().body_type;
    if (streamed)
      return streamed_reduce(prepared, compiled, views,
                             Extent{std::min(domain_size, limit), count_cell(domain)},
                             operands[analysis.root_segdes].segdes);
    Vector body = new_device_vector(result, domain);
    const Extent items = extent(domain, std::min(limit, capacity(body)));
    const FaultWord fault = body_fault(analysis);
    evaluate_body(prepared, compiled, views, 0, items, device_pointer(body), fault.get());
    if (!analysis.folds()) return done(std::move(body));
    const Segdes& sd = operands[analysis.root_segdes].segdes;
    if (analysis.root_kind == vcode::RootKind::Scan)
      return scan(analysis.root_op, std::move(body), sd);
    return reduce(analysis.root_op, std::move(body), sd);
  }

  // Whether each DIST/INDEX leaf holds the segments it is read at.
  bool leaves_hold(const CudaSuperOp& prepared, std::span<const FusedOperand> operands) {
    const vcode::SuperOpAnalysis& analysis = prepared.analysis;
    for (std::size_t i = 0; i < operands.size(); ++i)
      for (std::uint32_t s : analysis.operands[i].per_segment_of)
        if (!holds({{capacity(operands[i].vector), &segdes(operands[s].segdes).segments}}))
          return false;
    return true;
  }

  // Whether `prepared` runs as its compiled kernel (on a GPU, unless NESL_CUDA_FUSED says not).
  bool compiled_kernel(const CudaSuperOp& prepared) {
#if CVL_CUDA_REAL
    if (use_jit_ && !jit_) jit_ = std::make_unique<jit::KernelCache>(device_->id());
    return use_jit_ && jit_->available(prepared.kernel, prepared.definition);
#else
    (void)prepared;
    return false;
#endif
  }

  // The fault word of a body: only an INT / or % can trap, other superoperators take no slot of
  // the fault board.
  FaultWord body_fault(const vcode::SuperOpAnalysis& analysis) {
    if (!analysis.divides) return {};
    return device_->fault_word(
        [](std::uint64_t word) { return std::string(cvl_sem::trap_message(word)); });
  }

  // The body at elements first..items.items()-1 into out[j - first]: the compiled kernel where
  // there is one, else the interpreter kernel.
  void evaluate_body(const CudaSuperOp& prepared, bool compiled,
                     const std::vector<fused::OperandView>& views, std::size_t first, Extent items,
                     void* out, unsigned long long* fault) {
#if CVL_CUDA_REAL
    if (compiled && jit_->run(*device_, prepared.kernel, prepared.definition, views, first, items,
                              out, fault, fused::body_traffic(prepared.interpreter.plan(), views)))
      return;
#else
    (void)compiled;
#endif
    prepared.interpreter.evaluate(device_, prepared.definition.id, views, first, items, out,
                                  fault);
  }

  // A reduction root in chunks (fused.hpp: StreamedFold): one chunk's buffer, never the body.
  Vector streamed_reduce(const CudaSuperOp& prepared, bool compiled,
                         const std::vector<fused::OperandView>& views, Extent items,
                         const Segdes& sd) {
    const vcode::SuperOpAnalysis& analysis = prepared.analysis;
    const Type type = prepared.interpreter.plan().body_type;
    const FaultWord fault = body_fault(analysis);
    Vector out = new_device_vector(type, segdes(sd).segments);
    fused::StreamedFold fold(device_, analysis.root_op, type, device_map(sd, false, true),
                             device_pointer(out));
    const std::size_t chunk_elements = fused::stream_chunk_elements();
    DeviceBuffer chunk(device_, chunk_elements * element_size(type));
    for (std::size_t first = 0; first < items.bound; first += chunk_elements) {
      const Extent end{std::min(first + chunk_elements, items.bound), items.count};
      evaluate_body(prepared, compiled, views, first, end, chunk.get(), fault.get());
      fold.add(first, end, chunk.get());
    }
    return done(std::move(out));
  }

  FloatRankOrder float_rank_;
  bool lazy_;  // long elementwise, INDEX and DIST results pending (BackendOptions)
  std::vector<std::weak_ptr<VectorStorage>> pending_results_;  // for complete_pending_work
  std::size_t prune_pending_at_ = 1024;
  std::unordered_map<std::string, std::shared_ptr<const CudaSuperOp>> pending_plans_;
  std::uint64_t fused_plans_ = 0;
#if CVL_CUDA_REAL
  // NESL_CUDA_FUSED=interpreter keeps FUSED on the interpreter kernel (to compare the two).
  bool use_jit_ = [] {
    const char* choice = std::getenv("NESL_CUDA_FUSED");
    return !(choice && std::string(choice) == "interpreter");
  }();
  std::unique_ptr<jit::KernelCache> jit_;
#endif
};

}  // namespace
}  // namespace cvl::CVL_CUDA_NS

namespace cvl {

// The factory and the registry's entry of this build (cvl/registry.hpp).
#if CVL_CUDA_REAL
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options) {
  return std::make_unique<CVL_CUDA_NS::CudaBackend>(options);
}
namespace {
constexpr const BackendOptionGroup* option_groups[] = {&cuda_option_group};
}  // namespace
extern const BackendEntry cuda_backend_entry;
const BackendEntry cuda_backend_entry{.name = "cuda", .make = &make_cuda_backend,
                                      .option_groups = option_groups};
#else
std::unique_ptr<Backend> make_cuda_emulated_backend(const BackendOptions& options) {
  return std::make_unique<CVL_CUDA_NS::CudaBackend>(options);
}
namespace {
constexpr const BackendOptionGroup* option_groups[] = {&cuda_option_group,
                                                       &cuda_emulation_option_group};
}  // namespace
extern const BackendEntry cuda_emulated_backend_entry;
const BackendEntry cuda_emulated_backend_entry{.name = "cuda-emulated",
                                               .make = &make_cuda_emulated_backend,
                                               .option_groups = option_groups};
#endif

}  // namespace cvl
