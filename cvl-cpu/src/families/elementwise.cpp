// Elementwise ops (spec/CVL.md §3.1): one generic loop per arity, instantiated for every op and
// element type ops.def lists (cvl/op_dispatch.hpp), applying the op's cvl_sem rule. Each loop is
// a plain indexed loop the compiler can vectorize.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cvl/op_dispatch.hpp"
#include "families/families.hpp"
#include "pending/lazy_elementwise.hpp"
#include "families/vector_math.hpp"

namespace cvl::cpu {
namespace {

using vcode::Op;

// The result takes over the first operand that has its type and no other handle, else new memory.
// Callers take their input pointers first: the storage stays alive inside the result.
Vector result_for(std::span<Vector> operands, Type type, std::size_t n) {
  if (Vector* taken = first_reusable(operands, type, n)) return std::move(*taken);
  return allocate(type, n);
}

// out[i] = Sem::apply(in[i]...): the inputs are read before the result may take over one of them.
template <class Sem, class Out, class... In>
Vector map_with(const Parallel& par, std::size_t threshold, std::span<Vector> ops, Type out_type,
                const In*... in) {
  const std::size_t n = ops[0].length;
  Vector out = result_for(ops, out_type, n);
  Out* o = elements<Out>(out);
  parallel_for(par, n, threshold, [=](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) o[i] = Sem::apply(in[i]...);
  });
  return out;
}

// The op's rule over its operands, typed by its ops.def signature.
template <Op kOp, class Sem, Type kType, std::size_t... k>
Vector map(const Parallel& par, std::span<Vector> ops, std::index_sequence<k...>) {
  using Sig = Signature<kOp, kType>;
  return map_with<Sem, typename Sig::Out>(
      par, threshold_for(kOp), ops, Sig::result,
      static_cast<const typename Sig::template In<k>*>(
          elements<typename Sig::template In<k>>(ops[k]))...);
}

// INT / and %: the classic dies of SIGFPE on a zero divisor and on INT_MIN / -1; we check the
// divisors first (one vectorizable pass), so the loop cannot trap, and report the first.
template <class Sem>
void check_divisors(const Parallel& par, std::span<Vector> ops) {
  const std::size_t n = ops[0].length;
  const auto* a = elements<std::int32_t>(ops[0]);
  const auto* b = elements<std::int32_t>(ops[1]);
  auto traps = [=](std::size_t i) { return Sem::traps(a[i], b[i]); };
  if (!parallel_any(par, n, kMemoryBoundThreshold, traps)) return;
  for (std::size_t i = 0; i < n; ++i)
    if (traps(i)) throw Error(cvl_sem::trap_message(cvl_sem::trap_word(i, b[i])));
}

// SELECT on the element bits: the 0/1 flag widened to an all-zeros/all-ones mask, so the loop
// has no branch (random flags would mispredict half the time) and vectorizes. Same result as
// cvl_sem::Select.
template <class Bits>
Vector select_bits(const Parallel& par, std::span<Vector> ops, Type type) {
  const std::size_t n = ops[0].length;
  const auto* flags = elements<std::uint8_t>(ops[0]);
  const Bits* a = elements<Bits>(ops[1]);
  const Bits* b = elements<Bits>(ops[2]);
  Vector out = result_for(ops, type, n);
  Bits* o = elements<Bits>(out);
  parallel_for(par, n, kMemoryBoundThreshold, [=](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      const auto mask = static_cast<Bits>(Bits{0} - static_cast<Bits>(flags[i]));
      o[i] = static_cast<Bits>((a[i] & mask) | (b[i] & static_cast<Bits>(~mask)));
    }
  });
  return out;
}

// The fast mode of a transcendental: a vector function over each thread's block.
Vector map_array(const Parallel& par, ArrayFunction function, std::span<Vector> ops) {
  const std::size_t n = ops[0].length;
  const double* in = elements<double>(ops[0]);
  Vector out = result_for(ops, Type::Float, n);
  double* o = elements<double>(out);
  parallel_for(par, n, kComputeBoundThreshold,
               [=](std::size_t lo, std::size_t hi) { function(hi - lo, in + lo, o + lo); });
  return out;
}

// A binary op of a vector and a vector of one value (NESL's constants: `a1 * k`): the value is
// read once, never from memory (its elements may never be written: Buffer::defer_fill).
template <class Sem, class Out, class A, class B>
Vector map_with_value(const Parallel& par, std::size_t threshold, std::span<Vector> ops,
                      Type out_type) {
  const std::size_t n = ops[0].length;
  const std::optional<std::uint64_t> a_bits = uniform_bits(ops[0]);
  const A* a = a_bits ? nullptr : elements<A>(ops[0]);
  const B* b = a_bits ? elements<B>(ops[1]) : nullptr;
  const std::uint64_t bits = a_bits ? *a_bits : uniform_bits(ops[1]).value_or(0);
  A a_value{};
  B b_value{};
  if (a_bits)
    std::memcpy(&a_value, &bits, sizeof(A));
  else
    std::memcpy(&b_value, &bits, sizeof(B));
  drop_deferred_fills(ops);
  Vector out = result_for(ops, out_type, n);
  Out* o = elements<Out>(out);
  parallel_for(par, n, threshold, [=](std::size_t lo, std::size_t hi) {
    if (a)
      for (std::size_t i = lo; i < hi; ++i) o[i] = Sem::apply(a[i], b_value);
    else
      for (std::size_t i = lo; i < hi; ++i) o[i] = Sem::apply(a_value, b[i]);
  });
  return out;
}

// o[i] = Sem::apply(value, in[i]) (kValueFirst) or Sem::apply(in[i], value) for i in [lo, hi).
// A function of its own: in a lambda capturing the pointers by reference, each BOOL store might
// change them, so the loop would reload them and not vectorize.
template <class Sem, class Out, class A, class B, bool kValueFirst>
void apply_with_value(std::conditional_t<kValueFirst, A, B> value,
                      const std::conditional_t<kValueFirst, B, A>* in, Out* o, std::size_t lo,
                      std::size_t hi) {
  if constexpr (kValueFirst)
    for (std::size_t i = lo; i < hi; ++i) o[i] = Sem::apply(value, in[i]);
  else
    for (std::size_t i = lo; i < hi; ++i) o[i] = Sem::apply(in[i], value);
}

// A binary op of a vector and a vector of one value per segment (a DIST over segments: qs's
// pivots, quickhull's lines): each segment's value is read once, never from the elements (which
// may never be written: Buffer::segment_values).
template <class Sem, class Out, class A, class B>
Vector map_with_segment_values(const Parallel& par, std::size_t threshold,
                               std::span<Vector> ops, Type out_type) {
  const std::size_t n = ops[0].length;
  std::shared_ptr<const SegmentValues> rule = segment_values_of(ops[0]);  // kept alive here
  const bool a_per_segment = rule != nullptr;
  if (!a_per_segment) rule = segment_values_of(ops[1]);
  const SegmentView sd = view(rule->segments);
  const A* a = a_per_segment ? elements<A>(rule->values) : elements<A>(ops[0]);
  const B* b = a_per_segment ? elements<B>(ops[1]) : elements<B>(rule->values);
  drop_deferred_fills(ops);
  Vector out = result_for(ops, out_type, n);
  Out* o = elements<Out>(out);
  for_each_part(par, sd, threshold, [&](const Part& p, std::size_t) {
    for_each_piece(sd, p, [&](std::size_t k, std::size_t lo, std::size_t hi) {
      if (a_per_segment)
        apply_with_value<Sem, Out, A, B, true>(a[k], b, o, lo, hi);
      else
        apply_with_value<Sem, Out, A, B, false>(b[k], a, o, lo, hi);
    });
  });
  return out;
}

// Whether exactly one of a binary op's operands has its values per segment recorded.
bool one_operand_per_segment(std::span<Vector> ops) {
  return (segment_values_of(ops[0]) != nullptr) != (segment_values_of(ops[1]) != nullptr);
}

// Whether exactly one of a binary op's operands is known to be of one value.
bool one_operand_uniform(std::span<Vector> ops) {
  return ops[0].length >= kDeferredFillMin &&
         uniform_bits(ops[0]).has_value() != uniform_bits(ops[1]).has_value();
}

// Operands each of one value (DISTs of NESL's constants, and ops of those): the op on one
// element, through the same function as the whole vector would take (so the bits and any error
// are the same: the first element is where an INT division fails); the result is of one value
// too, its elements written only if something takes their address.
std::optional<Vector> elementwise_of_values(const Context& ctx, Op op, Type type,
                                            std::span<Vector> ops) {
  if (ops[0].length < kDeferredFillMin) return std::nullopt;
  std::vector<Vector> one;
  for (const Vector& v : ops) {
    const std::optional<std::uint64_t> bits = uniform_bits(v);
    if (!bits) return std::nullopt;
    Vector e = allocate(v.type, 1);
    std::memcpy(elements<std::byte>(e), &*bits, element_size(v.type));
    one.push_back(std::move(e));
  }
  const Vector value = elementwise(ctx, op, type, one);
  std::uint64_t bits = 0;
  std::memcpy(&bits, elements<std::byte>(value), element_size(value.type));
  return uniform_vector(ops, value.type, ops[0].length, bits);
}
}  // namespace

Vector elementwise(const Context& ctx, Op op, Type type, std::span<Vector> ops) {
  if (std::optional<Vector> out = elementwise_of_values(ctx, op, type, ops)) return std::move(*out);
  if (ctx.lazy)
    if (std::optional<Vector> out = lazy_elementwise(ctx, op, type, ops)) return std::move(*out);
  if (ctx.fast_math)
    if (ArrayFunction function = fast_math_function(op)) return map_array(ctx.par, function, ops);
  return visit_elementwise(op, type, [&]<Op kOp, class Sem, Type kType>() {
    if constexpr (kOp == Op::Select) {
      return with_element_bits(
          type, [&]<class Bits>() { return select_bits<Bits>(ctx.par, ops, type); });
    } else {
      using Sig = Signature<kOp, kType>;
      // A binary op with one operand known by its value(s); INT / and % check every divisor.
      if constexpr (Sig::arity == 2 && !(checks_divisor<Sem> && kType == Type::Int)) {
        using A = typename Sig::template In<0>;
        using B = typename Sig::template In<1>;
        if (one_operand_uniform(ops))
          return map_with_value<Sem, typename Sig::Out, A, B>(ctx.par, threshold_for(kOp), ops,
                                                             Sig::result);
        if (one_operand_per_segment(ops))
          return map_with_segment_values<Sem, typename Sig::Out, A, B>(
              ctx.par, threshold_for(kOp), ops, Sig::result);
      }
      if constexpr (checks_divisor<Sem>)
        if constexpr (kType == Type::Int) check_divisors<Sem>(ctx.par, ops);
      return map<kOp, Sem, kType>(ctx.par, ops, std::make_index_sequence<Sig::arity>{});
    }
  });
}

}  // namespace cvl::cpu
