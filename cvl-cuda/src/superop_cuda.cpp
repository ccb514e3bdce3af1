#include "cvl_cuda/superop_cuda.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cvl/op_dispatch.hpp"
#include "vcode/superop_analysis.hpp"
#include "vcode/superop_check.hpp"
#include "vcode/superop_stages.hpp"
#include "vcode/superop_print.hpp"

namespace vcode {
namespace detail {
extern const char scalar_semantics_text[];  // generated from cvl/scalar_semantics.hpp
extern const char segment_view_text[];       // and cvl/segment_view.hpp
}  // namespace detail

namespace {

using Kind = SuperOpNode::Kind;

// Whether `op` at type keyword `type` is an INT division whose divisor is checked first.
bool checks_int_divisor(Op op, TypeKeyword type) {
  return cvl::visit_elementwise(op, cvl::to_type(type), []<Op, class Sem, cvl::Type kType>() {
    return cvl::checks_divisor<Sem> && kType == cvl::Type::Int;
  });
}

// Helpers every kernel uses, after scalar_semantics.hpp.
constexpr const char* kHelpers = R"cuda(
// ---- FCODE superoperator kernels (cvl_cuda/superop_cuda.hpp) ----
namespace nesl_fused {

// Records a trapping INT division at element j (the lowest j wins) and yields a placeholder.
__device__ __forceinline__ int division_fault(unsigned long long* fault, long long j,
                                              int divisor) {
  atomicMin(fault, cvl_sem::trap_word((unsigned long long)j, divisor));
  return 0;
}

}  // namespace nesl_fused
)cuda";

const char* c_type(TypeKeyword t) {
  switch (t) {
    case TypeKeyword::Float: return "double";
    case TypeKeyword::Bool: return "unsigned char";
    default: return "int";
  }
}

std::string float_literal(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  char text[64];
  std::snprintf(text, sizeof text, "__longlong_as_double(0x%016llxLL)",
                static_cast<unsigned long long>(bits));
  return text;
}

std::string constant_literal(const SuperOpNode& n) {
  switch (n.type) {
    case TypeKeyword::Float: return float_literal(n.float_value);
    case TypeKeyword::Bool: return n.int_value ? "(unsigned char)1" : "(unsigned char)0";
    default:
      if (n.int_value == INT32_MIN) return "(-2147483647 - 1)";
      return "(int)" + std::to_string(n.int_value);
  }
}

class KernelWriter {
 public:
  KernelWriter(const SuperOp& op, std::string name)
      : op_(op), name_(std::move(name)), analysis_(analyze(op)),
        values_node_(analysis_.values_node) {}

  std::string run() {
    out_ += "\n// " + superop_text(op_) + "\n";
    args_struct();
    value_function();
    functor();
    kernel();
    return std::move(out_);
  }

 private:
  std::string var(std::uint32_t node) const {
    std::string name = "v";  // appended, not "v" + ...: GCC 12 warns (-Wrestrict) on that
    return name += std::to_string(node);
  }
  const char* value_type() const { return c_type(op_.nodes[values_node_].result); }

  // The operand parameters (or struct members, with `;` separators).
  std::string operand_list(const char* separator, bool restrict) const {
    std::string list;
    const char* r = restrict ? " __restrict__" : "";
    for (std::size_t k = 0; k < op_.operands.size(); ++k) {
      const std::string K = std::to_string(k);
      if (op_.operands[k] == TypeKeyword::Segdes) {
        list += "cvl_sem::SegmentView sd" + K + separator;
      } else {
        list += std::string("const ") + c_type(op_.operands[k]) + "*" + r + " in" + K + separator;
      }
    }
    return list;
  }

  void args_struct() {
    out_ += "struct " + name_ + "_args {\n  " + operand_list(";\n  ", false) + "long long n;\n};\n";
  }

  // Leaf of DIST/INDEX: element seg of an operand, or the constant.
  std::string leaf(std::uint32_t node, std::uint32_t segdes) const {
    const SuperOpNode& n = op_.nodes[node];
    if (n.kind == Kind::Constant) return constant_literal(n);
    return "a.in" + std::to_string(n.operand) + "[seg" + std::to_string(segdes) + "]";
  }

  // A call of the op's cvl_sem rule (ops.def Sem); overloads pick the element types from the
  // typed variables. INT / and % check their divisors first, as every evaluator does.
  std::string elementwise(std::uint32_t i) const {
    const SuperOpNode& n = op_.nodes[i];
    std::string args;
    for (std::uint8_t k = 0; k < n.arity; ++k) args += (k ? ", " : "") + var(n.args[k]);
    const std::string rule = "cvl_sem::" + std::string(info(n.op).sem);
    const std::string call = rule + "::apply(" + args + ")";
    if (!checks_int_divisor(n.op, n.type)) return call;
    const std::string a = var(n.args[0]), b = var(n.args[1]);
    return "(" + rule + "::traps(" + a + ", " + b + ") ? nesl_fused::division_fault(fault, j, " +
           b + ") : " + call + ")";
  }

  void value_function() {
    out_ += "__device__ __forceinline__ " + std::string(value_type()) + " " + name_ +
            "_value(const " + name_ + "_args& a, long long j, unsigned long long* fault) {\n";
    out_ += "  (void)fault;\n";
    for (std::size_t k = 0; k < op_.operands.size(); ++k) {
      if (!analysis_.segment_of_needed[k]) continue;
      const std::string K = std::to_string(k);
      out_ += "  const long long seg" + K + " = (long long)a.sd" + K + ".segment_of(j);\n";
    }
    for (std::uint32_t i = 0; i <= values_node_; ++i) {
      const SuperOpNode& n = op_.nodes[i];
      const std::string decl = "  const " + std::string(c_type(n.result)) + " " + var(i) + " = ";
      switch (n.kind) {
        case Kind::Operand:
          if (analysis_.roles[i] == NodeRole::Element)
            out_ += decl + "a.in" + std::to_string(n.operand) + "[j];\n";
          break;
        case Kind::Constant:
          if (analysis_.roles[i] == NodeRole::Constant) out_ += decl + constant_literal(n) + ";\n";
          break;
        case Kind::Elementwise:
          out_ += decl + elementwise(i) + ";\n";
          break;
        case Kind::Dist:
          out_ += decl + leaf(n.args[0], op_.nodes[n.args[1]].operand) + ";\n";
          break;
        case Kind::Index: {
          const std::string s = std::to_string(op_.nodes[n.args[2]].operand);
          out_ += decl + "cvl_sem::index_value(" + leaf(n.args[0], op_.nodes[n.args[2]].operand) +
                  ", " + leaf(n.args[1], op_.nodes[n.args[2]].operand) + ", (unsigned int)(j - (long long)a.sd" +
                  s + ".start(seg" + s + ")));\n";
          break;
        }
        case Kind::Scan:
        case Kind::Reduce:
          break;  // only the root: its fold is the host's or the library's
        case Kind::Gather:
        case Kind::Random:
          break;  // never in a checked definition (cvl-cpu's run-time expressions only)
      }
    }
    out_ += "  return " + var(values_node_) + ";\n}\n";
  }

  void functor() {
    out_ += "struct " + name_ + "_functor {\n  " + name_ + "_args a;\n  unsigned long long* fault;\n"
            "  __device__ " + value_type() + " operator()(long long j) const { return " + name_ +
            "_value(a, j, fault); }\n};\n";
  }

  void kernel() {
    out_ += "extern \"C\" __global__ void " + name_ + "(" + operand_list(", ", true) +
            "long long first, long long n, const long long* __restrict__ count, " + value_type() +
            "* __restrict__ out, unsigned long long* __restrict__ fault) {\n";
    // A count pending on the device (cvl/length.hpp) ends the domain early; n is its bound.
    out_ += "  if (count && *count < n) n = *count;\n";
    out_ += "  " + name_ + "_args a;\n";
    for (std::size_t k = 0; k < op_.operands.size(); ++k) {
      const std::string K = std::to_string(k);
      if (op_.operands[k] == TypeKeyword::Segdes)
        out_ += "  a.sd" + K + " = sd" + K + ";\n";
      else
        out_ += "  a.in" + K + " = in" + K + ";\n";
    }
    out_ += "  a.n = n;\n"
            "  const long long stride = (long long)gridDim.x * blockDim.x;\n"
            "  for (long long j = first + (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n;\n"
            "       j += stride)\n"
            "    out[j - first] = " + name_ + "_value(a, j, fault);\n}\n";
  }

  const SuperOp& op_;
  std::string name_;
  SuperOpAnalysis analysis_;  // which nodes are made at element j, which descriptors are searched
  std::uint32_t values_node_ = 0;
  std::string out_;
};

}  // namespace

std::string cuda_kernel_name(const SuperOp& op) { return "nesl_superop_" + std::to_string(op.id); }

std::string cuda_source(const SuperOp& op) {
  std::vector<Diagnostic> problems;
  check_superop(op, {}, problems);
  if (!problems.empty())
    throw std::invalid_argument("cuda_source: " + problems.front().message);
  if (!has_nested_reduction(op)) return KernelWriter(op, cuda_kernel_name(op)).run();
  // A kernel per stage, as the backends run it (superop_stages.hpp).
  std::string source = "\n// " + superop_text(op) + "\n// in stages:\n";
  const std::vector<SuperOpStage> stages = split_stages(op);
  for (std::size_t k = 0; k < stages.size(); ++k)
    source += KernelWriter(stages[k].op, cuda_kernel_name(op) + "_stage" + std::to_string(k)).run();
  return source;
}

const std::string& cuda_prelude() {
  static const std::string prelude =
      std::string(detail::scalar_semantics_text) + detail::segment_view_text + kHelpers;
  return prelude;
}

std::string cuda_program_source(const std::vector<SuperOp>& ops) {
  std::string source = "// CUDA source of FCODE superoperators, generated by vcode::cuda_program_source.\n";
  source += cuda_prelude();
  for (const SuperOp& op : ops) source += cuda_source(op);
  return source;
}

}  // namespace vcode
