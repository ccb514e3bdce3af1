#include "vcode/superop_cuda.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "vcode/superop_analysis.hpp"
#include "vcode/superop_check.hpp"
#include "vcode/superop_print.hpp"

namespace vcode {
namespace detail {
extern const char scalar_semantics_text[];  // generated from cvl/scalar_semantics.hpp
}  // namespace detail

namespace {

using Kind = SuperOpNode::Kind;

// Helpers every kernel uses, after scalar_semantics.hpp.
constexpr const char* kHelpers = R"cuda(
// ---- FCODE superoperator kernels (vcode/superop_cuda.hpp) ----
namespace nesl_fused {

// The segment holding element j: segment_of[j] when the map is given, else the last segment
// starting at or before j (offsets has segments + 1 entries, offsets[0] == 0 <= j < total).
__device__ __forceinline__ long long segment_of(const long long* offsets,
                                                const unsigned int* index, long long segments,
                                                long long j) {
  if (index) return (long long)index[j];
  long long lo = 0, hi = segments;
  while (hi - lo > 1) {
    long long mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= j) lo = mid; else hi = mid;
  }
  return lo;
}

// Records a trapping INT division at element j (the lowest j wins) and yields a placeholder.
__device__ __forceinline__ int division_fault(unsigned long long* fault, long long j,
                                              int divisor) {
  atomicMin(fault, ((unsigned long long)j << 1) | (divisor == 0 ? 0ull : 1ull));
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
  explicit KernelWriter(const SuperOp& op)
      : op_(op), name_(cuda_kernel_name(op)), analysis_(analyze(op)),
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
  std::string var(std::uint32_t node) const { return "v" + std::to_string(node); }
  const char* value_type() const { return c_type(op_.nodes[values_node_].result); }

  // The operand parameters (or struct members, with `;` separators).
  std::string operand_list(const char* separator, bool restrict) const {
    std::string list;
    const char* r = restrict ? " __restrict__" : "";
    for (std::size_t k = 0; k < op_.operands.size(); ++k) {
      const std::string K = std::to_string(k);
      if (op_.operands[k] == TypeKeyword::Segdes) {
        list += std::string("const long long*") + r + " offsets" + K + separator;
        list += std::string("const unsigned int*") + r + " segment_of" + K + separator;
        list += "long long segments" + K + separator;
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

  std::string elementwise(std::uint32_t i) const {
    const SuperOpNode& n = op_.nodes[i];
    const std::string a = var(n.args[0]);
    const std::string b = n.arity > 1 ? var(n.args[1]) : "";
    const std::string c = n.arity > 2 ? var(n.args[2]) : "";
    const bool is_int = n.type == TypeKeyword::Int;
    auto call = [&](const char* f) { return std::string("cvl_sem::") + f + "(" + a + (b.empty() ? "" : ", " + b) + ")"; };
    auto compare = [&](const char* o) { return "(unsigned char)(" + a + " " + o + " " + b + ")"; };
    auto bits = [&](const char* o) {
      return std::string(is_int ? "(int)(" : "(unsigned char)(") + a + " " + o + " " + b + ")";
    };
    auto divide = [&](const char* f) {
      return "(cvl_sem::divisor_traps(" + a + ", " + b + ") ? nesl_fused::division_fault(fault, j, " + b +
             ") : " + call(f) + ")";
    };
    switch (n.op) {
      case Op::Add: return call(is_int ? "add_i" : "add_f");
      case Op::Sub: return call(is_int ? "sub_i" : "sub_f");
      case Op::Mul: return call(is_int ? "mul_i" : "mul_f");
      case Op::Div: return is_int ? divide("div_i") : call("div_f");
      case Op::Mod: return divide("mod_i");
      case Op::Less: return compare("<");
      case Op::LessEq: return compare("<=");
      case Op::Greater: return compare(">");
      case Op::GreaterEq: return compare(">=");
      case Op::Equal: return compare("==");
      case Op::NotEqual: return compare("!=");
      case Op::LShift: return call("lshift");
      case Op::RShift: return call("rshift");
      case Op::Not: return call(is_int ? "not_i" : "not_b");
      case Op::And: return bits("&");
      case Op::Or: return bits("|");
      case Op::Xor: return bits("^");
      case Op::Select: return "(" + a + " ? " + b + " : " + c + ")";
      case Op::Floor: return call("floor_to_int");
      case Op::Ceil: return call("ceil_to_int");
      case Op::Trunc: return call("trunc_to_int");
      case Op::Round: return call("round_to_int");
      case Op::Log: return call("log_f");
      case Op::Sqrt: return call("sqrt_f");
      case Op::Exp: return call("exp_f");
      case Op::Sin: return call("sin_f");
      case Op::Cos: return call("cos_f");
      case Op::Tan: return call("tan_f");
      case Op::Asin: return call("asin_f");
      case Op::Acos: return call("acos_f");
      case Op::Atan: return call("atan_f");
      case Op::Sinh: return call("sinh_f");
      case Op::Cosh: return call("cosh_f");
      case Op::Tanh: return call("tanh_f");
      case Op::IntToFloat: return call("int_to_float");
      case Op::IntToBool: return call("int_to_bool");
      case Op::BoolToInt: return call("bool_to_int");
      default: break;
    }
    throw std::invalid_argument("cuda_source: " + std::string(spelling(n.op)) +
                                " is not an elementwise op");
  }

  void value_function() {
    out_ += "__device__ __forceinline__ " + std::string(value_type()) + " " + name_ +
            "_value(const " + name_ + "_args& a, long long j, unsigned long long* fault) {\n";
    out_ += "  (void)fault;\n";
    for (std::size_t k = 0; k < op_.operands.size(); ++k) {
      if (!analysis_.segment_of_needed[k]) continue;
      const std::string K = std::to_string(k);
      out_ += "  const long long seg" + K + " = nesl_fused::segment_of(a.offsets" + K +
              ", a.segment_of" + K + ", a.segments" + K + ", j);\n";
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
          // start + position * stride modulo 2^32, as cvl-cpu's INDEX
          out_ += decl + "(int)((unsigned int)" + leaf(n.args[0], op_.nodes[n.args[2]].operand) +
                  " + (unsigned int)(j - a.offsets" + s + "[seg" + s + "]) * (unsigned int)" +
                  leaf(n.args[1], op_.nodes[n.args[2]].operand) + ");\n";
          break;
        }
        case Kind::Scan:
        case Kind::Reduce:
          break;  // only the root: its fold is the host's or the library's
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
            "long long n, " + value_type() + "* __restrict__ out, unsigned long long* __restrict__ fault) {\n";
    out_ += "  " + name_ + "_args a;\n";
    for (std::size_t k = 0; k < op_.operands.size(); ++k) {
      const std::string K = std::to_string(k);
      if (op_.operands[k] == TypeKeyword::Segdes)
        out_ += "  a.offsets" + K + " = offsets" + K + "; a.segment_of" + K + " = segment_of" +
                K + "; a.segments" + K + " = segments" + K + ";\n";
      else
        out_ += "  a.in" + K + " = in" + K + ";\n";
    }
    out_ += "  a.n = n;\n"
            "  const long long stride = (long long)gridDim.x * blockDim.x;\n"
            "  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)\n"
            "    out[j] = " + name_ + "_value(a, j, fault);\n}\n";
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
  return KernelWriter(op).run();
}

const std::string& cuda_prelude() {
  static const std::string prelude = std::string(detail::scalar_semantics_text) + kHelpers;
  return prelude;
}

std::string cuda_program_source(const std::vector<SuperOp>& ops) {
  std::string source = "// CUDA source of FCODE superoperators, generated by vcode::cuda_program_source.\n";
  source += cuda_prelude();
  for (const SuperOp& op : ops) source += cuda_source(op);
  return source;
}

}  // namespace vcode
