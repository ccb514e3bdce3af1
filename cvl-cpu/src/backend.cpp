// The CPU backend object, cvl-cpu's top layer: each public method forwards to its family in
// families.hpp (FUSED to fused.hpp), which checks what depends on the data (the interpreter has
// checked the shapes; in debug builds the registry's CheckingBackend checks them again at every
// call).
#include <cstring>
#include <limits>
#include <string>

#include "cvl/staged_superop.hpp"
#include "cvl_cpu/cvl_cpu.hpp"
#include "families/families.hpp"
#include "families/vector_math.hpp"
#include "fused/fused.hpp"
#include "memory/buffer_cache.hpp"
#include "memory/huge_pages.hpp"
#include "memory/index_bound.hpp"
#include "pending/lazy_elementwise.hpp"
#include "vcode/superop_stages.hpp"

namespace cvl {
namespace {

using vcode::Op;

// The descriptor's view; debug builds also check it against the handle's own counts.
cpu::SegmentView checked_view(const Segdes& sd) {
  if (const std::uint64_t total = cpu::streamed_total(sd)) throw Error(vector_too_long_message(total));
  cpu::SegmentView v = cpu::view(sd);
#ifndef NDEBUG
  if (v.segments != sd.segments || v.total != sd.total)
    throw InternalError("a segment descriptor handle does not match its storage");
#endif
  return v;
}

class CpuBackend final : public Backend, private HostMemory, private VectorMemory {
 public:
  explicit CpuBackend(const BackendOptions& options) {
    ctx_.par.threads = options.threads > 0 ? options.threads : cpu::available_cores();
    ctx_.float_rank = options.float_rank;
    ctx_.fast_math = options.fast_math;
    ctx_.lazy = options.lazy_elementwise;
    ctx_.memory = std::make_shared<cpu::MemoryBudget>(options.max_memory, ctx_.par.threads);
    ctx_.evaluator = &cpu::fused_evaluator();
    cpu::set_huge_pages(cpu::wants_huge_pages(options.huge_pages));
  }

  std::string name() const override { return "cpu"; }

  Vector upload(Type type, const void* data, std::size_t length) override {
    const cpu::MemoryScope charged(ctx_.memory);
    Vector v = cpu::allocate(type, length);
    if (length == 0) return v;
    if (type == Type::Bool) {  // any non-zero byte is T, stored as 1
      auto* from = static_cast<const std::uint8_t*>(data);
      auto* to = cpu::elements<std::uint8_t>(v);
      for (std::size_t i = 0; i < length; ++i) to[i] = from[i] != 0;
    } else {
      std::memcpy(cpu::elements<std::byte>(v), data, length * element_size(type));
    }
    return v;
  }

  void download(const Vector& v, std::size_t first, std::size_t count, void* out) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (count == 0) return;
    const std::size_t size = element_size(v.type);
    std::memcpy(out, cpu::elements<std::byte>(v) + first * size, count * size);
  }

  Vector elementwise(Op op, Type type, std::span<Vector> operands) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::elementwise(ctx_, op, type, operands);
  }

  Vector random(Vector bounds, RandomStream& stream) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::random(ctx_, std::move(bounds), stream);
  }

  Vector scan(Op op, Vector v, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (std::optional<Vector> folded = cpu::fold_pending(ctx_, op, v, sd)) return std::move(*folded);
    return cpu::scan(ctx_, op, std::move(v), checked_view(sd));
  }

  Vector reduce(Op op, Vector v, const Segdes& sd) override {
    return reduce_noting_first_nan(op, std::move(v), sd, nullptr);
  }

  // reduce, setting *first_held_nan (where given) as families.hpp's reduce does.
  Vector reduce_noting_first_nan(Op op, Vector v, const Segdes& sd, bool* first_held_nan) {
    const cpu::MemoryScope charged(ctx_.memory);
    if (std::optional<Vector> folded = cpu::fold_pending(ctx_, op, v, sd, first_held_nan))
      return std::move(*folded);
    return cpu::reduce(ctx_, op, std::move(v), checked_view(sd), first_held_nan);
  }

  Vector permute(Op op, PermuteOperands operands) override {
    const cpu::MemoryScope charged(ctx_.memory);
#ifndef NDEBUG
    checked_view(operands.source_segdes);
    if (op != Op::Permute) checked_view(operands.dest_segdes);
#endif
    return cpu::permute(ctx_, op, std::move(operands));
  }

  Vector extract(Vector v, Vector indices, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::extract(ctx_, std::move(v), std::move(indices), checked_view(sd));
  }

  Vector replace(Vector v, Vector indices, Vector values, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::replace(ctx_, std::move(v), std::move(indices), std::move(values),
                        checked_view(sd));
  }

  Vector distribute(Vector values, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (cpu::is_wide(sd) || cpu::streamed_total(sd))
      return cpu::distribute_wide(ctx_, std::move(values), sd);
    return cpu::distribute(ctx_, std::move(values), checked_view(sd), sd);
  }

  Vector index(Vector starts, Vector strides, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (cpu::is_wide(sd) || cpu::streamed_total(sd))
      return cpu::index_wide(ctx_, std::move(starts), std::move(strides), sd);
    return cpu::index(ctx_, std::move(starts), std::move(strides), checked_view(sd), sd);
  }

  Vector rank(Op op, Vector v, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::rank(ctx_, op, std::move(v), checked_view(sd));
  }

  std::pair<Vector, Segdes> pack(Vector v, Vector flags, const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::pack(ctx_, std::move(v), std::move(flags), checked_view(sd));
  }

  Segdes make_segdes(Vector lengths) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::segdes_from_lengths(ctx_.par, std::move(lengths), "MAKE_SEGDES");
  }

  // A wide descriptor (storage.hpp: is_wide) is streamed over, never stored.
  std::uint64_t longest_descriptor_total() const override {
    return std::numeric_limits<std::uint64_t>::max();
  }

  Vector segment_lengths(const Segdes& sd) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (!cpu::is_wide(sd) && !cpu::streamed_total(sd)) checked_view(sd);
    return cpu::segment_lengths(sd);
  }

  std::unique_ptr<PreparedSuperOp> prepare(const vcode::SuperOp& op) override {
    const cpu::MemoryScope charged(ctx_.memory);
    ++fused_plans_;
    if (vcode::has_nested_reduction(op)) {
      if (auto plan = cpu::prepare_arg_reduce(ctx_, *this, op)) return plan;
      return std::make_unique<StagedSuperOp>(*this, op);
    }
    return cpu::prepare_fused(ctx_, op);
  }

  using Backend::fused;
  Vector fused(const PreparedSuperOp& op, std::span<FusedOperand> operands,
               const Length& domain) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (op.nested) {  // staged, or prepare's one-pass plan
      if (const StagedSuperOp* staged = as_staged(op)) return staged->run(*this, operands, domain);
      return cpu::arg_reduce(ctx_, *this, op, operands, domain.get());
    }
    if (ctx_.lazy) {
      if (std::optional<Vector> out = cpu::lazy_fused(ctx_, op, operands, domain.get()))
        return std::move(*out);
      if (std::optional<Vector> out = cpu::fused_through_gathers(ctx_, op, operands, domain.get()))
        return std::move(*out);
    }
    return cpu::fused(ctx_, op, operands, domain);
  }

  // What is deferred here is pending elementwise results (lazy_elementwise.hpp); nothing is queued.
  void complete_pending_work() override { cpu::compute_pending(); }

  HostMemory* host_memory() override { return this; }
  VectorMemory* vector_memory() override { return this; }

  BackendStats stats() const override {
    BackendStats s;
    s.fused_plans = fused_plans_;
    s.host_bytes_in_use = ctx_.memory->live();
    return s;
  }

 private:
  std::uint64_t bytes_in_use() const override { return ctx_.memory->live(); }
  std::uint64_t take_peak_bytes() override { return ctx_.memory->take_peak(); }

  const void* host_elements(const Vector& v) override {
    const cpu::MemoryScope charged(ctx_.memory);
    return cpu::elements<std::byte>(v);
  }
  Vector new_host_vector(Type type, std::size_t length, void** elements) override {
    const cpu::MemoryScope charged(ctx_.memory);
    Vector v = cpu::allocate(type, length);
    *elements = cpu::elements<std::byte>(v);
    return v;
  }
  // Unlike an op's reuse (cpu::reusable), pages never touched yet are taken too: the caller
  // keeps the elements it does not overwrite, which a copy would write in full.
  void* writable_elements(Vector& v) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (!v.storage || v.storage.use_count() != 1) return nullptr;
    auto* buffer = static_cast<cpu::Buffer*>(v.storage.get());
    std::byte* elements = buffer->bytes();  // a deferred fill is written first
    buffer->forget_values();
    return elements;
  }

  bool indices_below(const Vector& indices, std::size_t length) override {
    const cpu::MemoryScope charged(ctx_.memory);
    if (const std::optional<std::uint32_t> known = cpu::indices_below(indices); known && *known <= length)
      return true;
    return cpu::check_indices_below(ctx_.par, indices, length).has_value();
  }

  cpu::Context ctx_;
  std::uint64_t fused_plans_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
  return std::make_unique<CpuBackend>(options);
}

const char* cpu_fast_math_description() { return cpu::fast_math_description(); }

void mark_streamed_block(const Segdes& block, std::uint64_t total) {
  auto* storage = static_cast<cpu::SegdesStorage*>(block.storage.get());
  if (storage && total > kMaxVectorLength) storage->streamed_total = total;
}

Vector reduce_noting_first_nan(Backend& backend, Op op, Vector v, const Segdes& sd,
                               bool& first_held_nan) {
  auto* cpu = dynamic_cast<CpuBackend*>(&backend);
  if (!cpu) throw InternalError("reduce_noting_first_nan: not a cpu backend");
  first_held_nan = false;
  return cpu->reduce_noting_first_nan(op, std::move(v), sd, &first_held_nan);
}

}  // namespace cvl
