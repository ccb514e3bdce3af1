// The loops behind elementwise_kernels.hpp, written once and compiled once per instruction set:
// the portable build (elementwise_kernels.cpp) and, on x86-64, block_loops_avx2.cpp and
// block_loops_avx512.cpp, each with its own target flags and -ffp-contract=off. Each op rounds
// once and FUSED evaluates one op per kernel, so wider vectors change no result bit (the
// cvl-cpu internals test compares every kernel of every variant with the portable one).
//
// Everything here is in an unnamed namespace: each variant's copy stays inside its own
// translation unit, so the linker can never hand a caller an instance compiled for an
// instruction set its CPU lacks (the same test checks that the wide variants' objects define
// no shared inline symbols).
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "cvl/op_dispatch.hpp"
#include "elementwise_kernels.hpp"

namespace cvl::cpu {
namespace {

// out[i] = Sem::apply(in[0][i], ...) over a block, typed by the op's ops.def signature.
template <class Sig, class Sem, std::size_t... k>
void apply_block(std::size_t n, const void* const* in, void* out, std::index_sequence<k...>) {
  std::tuple<const typename Sig::template In<k>*...> operand{
      static_cast<const typename Sig::template In<k>*>(in[k])...};
  auto* o = static_cast<typename Sig::Out*>(out);
  for (std::size_t i = 0; i < n; ++i) o[i] = Sem::apply(std::get<k>(operand)[i]...);
}

template <vcode::Op kOp, class Sem, Type kType>
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

// The kernel of `op` applied with element type `type`, or nullptr when `op` is not elementwise or
// does not take `type`. It throws nothing and calls no shared inline function that could be
// emitted out of line here: the caller (elementwise_kernels.cpp, portable) reports the error.
template <vcode::Op kOp, class Sem>
Kernel typed_block_loop(Type type) {
  auto make = [&]<Type kType>() -> Kernel {
    if constexpr (!takes_type(kOp, kType)) {
      return nullptr;
    } else if constexpr (kOp == vcode::Op::Select) {
      return with_element_bits(kType, [&]<class Bits>() -> Kernel { return &select_bits<Bits>; });
    } else {
      return &block_kernel<kOp, Sem, kType>;
    }
  };
  switch (type) {
    case Type::Int: return make.template operator()<Type::Int>();
    case Type::Float: return make.template operator()<Type::Float>();
    case Type::Bool: return make.template operator()<Type::Bool>();
  }
  return nullptr;
}

Kernel block_loop_for(vcode::Op op, Type type) {
  switch (op) {
#define X(id, spelling, syntax, types, implied, family, sem, cost, shape, args, results, lengths, meaning) \
  case vcode::Op::id:                                                                           \
    if constexpr (vcode::Family::family == vcode::Family::Elementwise)                         \
      return typed_block_loop<vcode::Op::id, cvl_sem::sem>(type);                               \
    break;
#include "vcode/ops.def"
#undef X
  }
  return nullptr;
}

}  // namespace
}  // namespace cvl::cpu
