#include "fused_kernels.hpp"

#include <cstdint>
#include <tuple>
#include <utility>

#include "cvl/op_dispatch.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;

// out[i] = Sem::apply(in[0][i], ...) over a block, typed by the op's ops.def signature.
template <class Sig, class Sem, std::size_t... k>
void apply_block(std::size_t n, const void* const* in, void* out, std::index_sequence<k...>) {
  std::tuple<const typename Sig::template In<k>*...> operand{
      static_cast<const typename Sig::template In<k>*>(in[k])...};
  auto* o = static_cast<typename Sig::Out*>(out);
  for (std::size_t i = 0; i < n; ++i) o[i] = Sem::apply(std::get<k>(operand)[i]...);
}

template <Op kOp, class Sem, Type kType>
void block_kernel(std::size_t n, const void* const* in, void* out) {
  using Sig = Signature<kOp, kType>;
  apply_block<Sig, Sem>(n, in, out, std::make_index_sequence<Sig::arity>{});
}

// SELECT on the element bits, branch-free like elementwise.cpp.
template <class Bits>
void select_bits(std::size_t n, const void* const* in, void* out) {
  const auto* flags = static_cast<const std::uint8_t*>(in[0]);
  const Bits* a = static_cast<const Bits*>(in[1]);
  const Bits* b = static_cast<const Bits*>(in[2]);
  Bits* o = static_cast<Bits*>(out);
  for (std::size_t i = 0; i < n; ++i) {
    const auto mask = static_cast<Bits>(Bits{0} - static_cast<Bits>(flags[i]));
    o[i] = static_cast<Bits>((a[i] & mask) | (b[i] & static_cast<Bits>(~mask)));
  }
}

}  // namespace

Kernel kernel_for(Op op, Type type) {
  return visit_elementwise(op, type, [&]<Op kOp, class Sem, Type kType>() -> Kernel {
    if constexpr (kOp == Op::Select)
      return with_element_bits(type, [&]<class Bits>() -> Kernel { return &select_bits<Bits>; });
    else
      return &block_kernel<kOp, Sem, kType>;
  });
}

}  // namespace cvl::cpu
