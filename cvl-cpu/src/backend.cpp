// The CPU backend object: each public method checks the operands' shapes (the interpreter has
// checked them already; a mismatch here would otherwise read out of bounds) and forwards to its
// family in families.hpp.
#include <cstring>
#include <string>
#include <string_view>

#include "cvl_cpu/cvl_cpu.hpp"
#include "families.hpp"

namespace cvl {
namespace {

using vcode::Op;

// Messages are built only on failure: these checks run on every instruction, mostly on scalars.
using Where = std::string_view;

void require(bool condition, Where where, const char* what) {
  if (!condition) throw InternalError(std::string(where) + ": " + what);
}

void require_length(const Vector& v, std::size_t length, Where where, const char* what) {
  if (v.length != length)
    throw InternalError(std::string(where) + ": " + what + " has length " +
                        std::to_string(v.length) + ", expected " + std::to_string(length));
}

void require_type(const Vector& v, Type type, Where where, const char* what) {
  if (v.type != type)
    throw InternalError(std::string(where) + ": " + what + " is " + type_name(v.type) +
                        ", expected " + type_name(type));
}

// The descriptor's view, checked against the handle's own counts.
cpu::SegView checked_view(const Segdes& sd, Where where) {
  cpu::SegView v = cpu::view(sd);
  require(v.segments == sd.segments && v.total == sd.total, where,
          "segment descriptor handle does not match its storage");
  return v;
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& options) {
    ctx_.par.threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    ctx_.float_rank = options.float_rank;
  }

  std::string name() const override { return "cpu"; }

  Vector upload(Type type, const void* data, std::size_t length) override {
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
    require(first <= v.length && count <= v.length - first, "download", "range outside the vector");
    if (count == 0) return;
    const std::size_t size = element_size(v.type);
    std::memcpy(out, cpu::elements<std::byte>(v) + first * size, count * size);
  }

  Vector elementwise(Op op, Type type, std::span<Vector> operands) override {
    const vcode::OpInfo& info = vcode::info(op);
    const Where where = vcode::spelling(op);
    require(info.family == vcode::Family::Elementwise, where, "not an elementwise operation");
    require(operands.size() == info.args.size(), where, "wrong number of operands");
    for (std::size_t i = 0; i < operands.size(); ++i) {
      require_length(operands[i], operands[0].length, where, "operand");
      Type expected = info.args[i] == 'I'   ? Type::Int
                      : info.args[i] == 'F' ? Type::Float
                      : info.args[i] == 'B' ? Type::Bool
                                            : type;
      require_type(operands[i], expected, where, "operand");
    }
    return cpu::elementwise(ctx_, op, type, operands);
  }

  Vector random(Vector bounds, RandomStream& stream) override {
    require_type(bounds, Type::Int, "RAND", "operand");
    return cpu::random(std::move(bounds), stream);
  }

  Vector scan(Op op, Vector v, const Segdes& sd) override {
    const Where where = vcode::spelling(op);
    require(vcode::info(op).family == vcode::Family::Scan, where, "not a scan");
    cpu::SegView view = checked_view(sd, where);
    require_length(v, view.total, where, "vector");
    return cpu::scan(ctx_, op, std::move(v), view);
  }

  Vector reduce(Op op, Vector v, const Segdes& sd) override {
    const Where where = vcode::spelling(op);
    require(vcode::info(op).family == vcode::Family::Reduce, where, "not a reduction");
    cpu::SegView view = checked_view(sd, where);
    require_length(v, view.total, where, "vector");
    return cpu::reduce(ctx_, op, std::move(v), view);
  }

  Vector permute(Op op, PermuteOperands operands) override {
    const Where where = vcode::spelling(op);
    require(vcode::info(op).family == vcode::Family::Permute, where, "not a permute operation");
    cpu::SegView source = checked_view(operands.source_segdes, where);
    const Vector& values = operands.values;
    require_type(operands.indices, Type::Int, where, "index vector");
    const bool scatter =
        op == Op::Permute || op == Op::DPermute || op == Op::FPermute || op == Op::DFPermute;
    const bool flagged = op == Op::FPermute || op == Op::BFPermute || op == Op::DFPermute;
    const bool with_default = op == Op::DPermute || op == Op::DFPermute;
    require_length(values, source.total, where, "value vector");
    if (op != Op::Permute) {
      cpu::SegView dest = checked_view(operands.dest_segdes, where);
      require(source.segments == dest.segments, where,
              "source and destination descriptors have different numbers of segments");
      if (with_default) {
        require_type(operands.defaults, values.type, where, "default vector");
        require_length(operands.defaults, dest.total, where, "default vector");
      }
      // Scatters index through the source shape, gathers through the destination shape.
      std::size_t indexed = scatter ? source.total : dest.total;
      require_length(operands.indices, indexed, where, "index vector");
      if (flagged) {
        require_type(operands.flags, Type::Bool, where, "flag vector");
        require_length(operands.flags, indexed, where, "flag vector");
      }
    } else {
      require_length(operands.indices, source.total, where, "index vector");
    }
    return cpu::permute(ctx_, op, std::move(operands));
  }

  Vector extract(Vector v, Vector indices, const Segdes& sd) override {
    cpu::SegView view = checked_view(sd, "EXTRACT");
    require_length(v, view.total, "EXTRACT", "vector");
    require_type(indices, Type::Int, "EXTRACT", "index vector");
    require_length(indices, view.segments, "EXTRACT", "index vector");
    return cpu::extract(ctx_, std::move(v), std::move(indices), view);
  }

  Vector replace(Vector v, Vector indices, Vector values, const Segdes& sd) override {
    cpu::SegView view = checked_view(sd, "REPLACE");
    require_length(v, view.total, "REPLACE", "vector");
    require_type(indices, Type::Int, "REPLACE", "index vector");
    require_length(indices, view.segments, "REPLACE", "index vector");
    require_type(values, v.type, "REPLACE", "value vector");
    require_length(values, view.segments, "REPLACE", "value vector");
    return cpu::replace(ctx_, std::move(v), std::move(indices), std::move(values), view);
  }

  Vector distribute(Vector values, const Segdes& sd) override {
    cpu::SegView view = checked_view(sd, "DIST");
    require_length(values, view.segments, "DIST", "value vector");
    return cpu::distribute(ctx_, std::move(values), view);
  }

  Vector index(Vector starts, Vector strides, const Segdes& sd) override {
    cpu::SegView view = checked_view(sd, "INDEX");
    require_type(starts, Type::Int, "INDEX", "start vector");
    require_type(strides, Type::Int, "INDEX", "stride vector");
    require_length(starts, view.segments, "INDEX", "start vector");
    require_length(strides, view.segments, "INDEX", "stride vector");
    return cpu::index(ctx_, std::move(starts), std::move(strides), view);
  }

  Vector rank(Op op, Vector v, const Segdes& sd) override {
    const Where where = vcode::spelling(op);
    require(op == Op::RankUp || op == Op::RankDown, where, "not a rank operation");
    cpu::SegView view = checked_view(sd, where);
    require_length(v, view.total, where, "vector");
    return cpu::rank(ctx_, op, std::move(v), view);
  }

  std::pair<Vector, Segdes> pack(Vector v, Vector flags, const Segdes& sd) override {
    cpu::SegView view = checked_view(sd, "PACK");
    require_length(v, view.total, "PACK", "vector");
    require_type(flags, Type::Bool, "PACK", "flag vector");
    require_length(flags, view.total, "PACK", "flag vector");
    return cpu::pack(ctx_, std::move(v), std::move(flags), view);
  }

  Segdes make_segdes(Vector lengths) override {
    require_type(lengths, Type::Int, "MAKE_SEGDES", "lengths vector");
    return cpu::segdes_from_lengths(ctx_.par, std::move(lengths), "MAKE_SEGDES");
  }

  Vector segment_lengths(const Segdes& sd) override {
    auto* storage = static_cast<cpu::SegdesStorage*>(sd.storage.get());
    if (!storage) return cpu::allocate(Type::Int, 0);
    return storage->lengths;  // shared, so nobody writes into it
  }

  Vector fused(const vcode::SuperOp& op, std::span<FusedOperand> operands,
               std::size_t domain) override {
    require(!op.nodes.empty() && operands.size() == op.operands.size(), "FUSED",
            "operands do not match the definition");
    for (std::size_t k = 0; k < operands.size(); ++k)
      if (op.operands[k] == vcode::TypeKeyword::Segdes) checked_view(operands[k].segdes, "FUSED");
    // Types and lengths against the definition's uses: checked where fused.cpp derives them.
    return cpu::fused(ctx_, op, operands, domain);
  }

 private:
  cpu::Context ctx_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
  return std::make_unique<CpuBackend>(options);
}

}  // namespace cvl
