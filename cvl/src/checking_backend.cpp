// CheckingBackend (checking_backend.hpp): each call's operands laid out at their ops.def
// positions and checked, then forwarded.
#include "cvl/checking_backend.hpp"

#include <array>

#include "cvl/shape_rules.hpp"

namespace cvl {
namespace {

using contract::Operand;
using vcode::Op;

void require(const std::string& problem) {
  if (!problem.empty()) throw contract::Violation("backend contract violated: " + problem);
}

Operand of(const Vector& v) { return {&v, nullptr}; }
Operand of(const Segdes& sd) { return {nullptr, &sd}; }

template <class... Operands>
void require_shapes(Op op, Type type, const Operands&... operands) {
  const std::array<Operand, sizeof...(Operands)> laid_out{of(operands)...};
  require(contract::problem(op, type, laid_out));
}

class CheckingBackend final : public Backend {
 public:
  explicit CheckingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  Vector upload(Type type, const void* data, std::size_t length) override {
    return inner_->upload(type, data, length);
  }
  void download(const Vector& v, std::size_t first, std::size_t count, void* out) override {
    require(contract::download_problem(v, first, count));
    inner_->download(v, first, count, out);
  }

  Vector elementwise(Op op, Type type, std::span<Vector> operands) override {
    require_family(op, vcode::Family::Elementwise);
    std::array<Operand, 3> laid_out;
    if (operands.size() > laid_out.size()) require(std::string(vcode::spelling(op)) + ": too many operands");
    for (std::size_t k = 0; k < operands.size(); ++k) laid_out[k] = of(operands[k]);
    require(contract::problem(op, type, std::span(laid_out.data(), operands.size())));
    return inner_->elementwise(op, type, operands);
  }
  Vector random(Vector bounds, RandomStream& stream) override {
    require_shapes(Op::Rand, Type::Int, bounds);
    return inner_->random(std::move(bounds), stream);
  }
  Vector scan(Op op, Vector v, const Segdes& sd) override {
    require_family(op, vcode::Family::Scan);
    require_shapes(op, v.type, v, sd);
    return inner_->scan(op, std::move(v), sd);
  }
  Vector reduce(Op op, Vector v, const Segdes& sd) override {
    require_family(op, vcode::Family::Reduce);
    require_shapes(op, v.type, v, sd);
    return inner_->reduce(op, std::move(v), sd);
  }
  Vector rank(Op op, Vector v, const Segdes& sd) override {
    require_family(op, vcode::Family::Rank);
    require_shapes(op, v.type, v, sd);
    return inner_->rank(op, std::move(v), sd);
  }
  Vector permute(Op op, PermuteOperands o) override {
    require_family(op, vcode::Family::Permute);
    // v i [f] [d] sd_s [sd_d], as ops.def lays them out.
    std::array<Operand, 6> laid_out;
    std::size_t k = 0;
    laid_out[k++] = of(o.values);
    laid_out[k++] = of(o.indices);
    if (vcode::permute_has_flags(op)) laid_out[k++] = of(o.flags);
    if (vcode::permute_has_defaults(op)) laid_out[k++] = of(o.defaults);
    laid_out[k++] = of(o.source_segdes);
    if (op != Op::Permute) laid_out[k++] = of(o.dest_segdes);
    require(contract::problem(op, o.values.type, std::span(laid_out.data(), k)));
    return inner_->permute(op, std::move(o));
  }
  Vector extract(Vector v, Vector indices, const Segdes& sd) override {
    require_shapes(Op::Extract, v.type, v, indices, sd);
    return inner_->extract(std::move(v), std::move(indices), sd);
  }
  Vector replace(Vector v, Vector indices, Vector values, const Segdes& sd) override {
    require_shapes(Op::Replace, v.type, v, indices, values, sd);
    return inner_->replace(std::move(v), std::move(indices), std::move(values), sd);
  }
  Vector distribute(Vector values, const Segdes& sd) override {
    require_shapes(Op::Dist, values.type, values, sd);
    return inner_->distribute(std::move(values), sd);
  }
  Vector index(Vector starts, Vector strides, const Segdes& sd) override {
    require_shapes(Op::Index, Type::Int, starts, strides, sd);
    return inner_->index(std::move(starts), std::move(strides), sd);
  }
  std::pair<Vector, Segdes> pack(Vector v, Vector flags, const Segdes& sd) override {
    require_shapes(Op::Pack, v.type, v, flags, sd);
    return inner_->pack(std::move(v), std::move(flags), sd);
  }
  Segdes make_segdes(Vector lengths) override {
    require_shapes(Op::MakeSegdes, Type::Int, lengths);
    return inner_->make_segdes(std::move(lengths));
  }
  Vector segment_lengths(const Segdes& sd) override {
    require_shapes(Op::Lengths, Type::Int, sd);
    return inner_->segment_lengths(sd);
  }

  std::unique_ptr<PreparedSuperOp> prepare(const vcode::SuperOp& op) override {
    return inner_->prepare(op);
  }
  using Backend::fused;
  Vector fused(const PreparedSuperOp& op, std::span<FusedOperand> operands,
               const Length& domain) override {
    require(contract::fused_problem(op, operands, domain));
    return inner_->fused(op, operands, domain);
  }
  Vector length_value(const Length& n) override { return inner_->length_value(n); }

  void synchronize() override { inner_->synchronize(); }
  std::uint64_t synchronizations() const override { return inner_->synchronizations(); }
  void wait_for_device() override { inner_->wait_for_device(); }
  void complete_pending_work() override { inner_->complete_pending_work(); }
  BackendStats stats() const override { return inner_->stats(); }
  DeviceClock* device_clock() override { return inner_->device_clock(); }
  Speculation* speculation() override { return inner_->speculation(); }
  OperationSites* operation_sites() override { return inner_->operation_sites(); }
  DistributedIo* distributed_io() override { return inner_->distributed_io(); }
  HostMemory* host_memory() override { return inner_->host_memory(); }
  VectorMemory* vector_memory() override { return inner_->vector_memory(); }
  std::uint64_t longest_descriptor_total() const override {
    return inner_->longest_descriptor_total();
  }

 private:
  static void require_family(Op op, vcode::Family family) {
    if (vcode::info(op).family != family)
      require(std::string(vcode::spelling(op)) + ": not an operation of this family");
  }

  std::unique_ptr<Backend> inner_;
};

}  // namespace

std::unique_ptr<Backend> checked(std::unique_ptr<Backend> backend) {
  return std::make_unique<CheckingBackend>(std::move(backend));
}

}  // namespace cvl
