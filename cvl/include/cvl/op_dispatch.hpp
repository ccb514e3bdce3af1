// Dispatch generated from ops.def: turns a runtime (op, element type) into compile-time template
// arguments (the op, its cvl_sem rule and the element type), for every op of a family. Backends
// write one generic body per family instead of a switch per op, so a new elementwise op needs
// only its ops.def row and its struct in cvl/scalar_semantics.hpp (ARCHITECTURE.md).
#pragma once

#include <cstddef>
#include <string>

#include "cvl/scalar_semantics.hpp"
#include "cvl/types.hpp"
#include "vcode/op.hpp"

namespace cvl {

// TypeKeyword <-> element type (SEGDES and CHAR have no element type of their own: INT).
inline constexpr Type to_type(vcode::TypeKeyword t) {
  return t == vcode::TypeKeyword::Float  ? Type::Float
         : t == vcode::TypeKeyword::Bool ? Type::Bool
                                         : Type::Int;
}
inline constexpr vcode::TypeKeyword to_keyword(Type t) {
  return t == Type::Float  ? vcode::TypeKeyword::Float
         : t == Type::Bool ? vcode::TypeKeyword::Bool
                           : vcode::TypeKeyword::Int;
}

// Whether `op` is defined on element type `t`: its type set, or its implied type.
inline constexpr bool takes_type(vcode::Op op, Type t) {
  const vcode::OpInfo& i = vcode::info(op);
  if (i.type_set == 0) return to_type(vcode::implied_type(op)) == t;
  return (i.type_set & vcode::typeset::bit(to_keyword(t))) != 0;
}

// The operand and result element types of op kOp applied with element type kType (the
// instruction's type, or the implied one), from the letters of ops.def.
template <vcode::Op kOp, Type kType>
struct Signature {
  static constexpr std::size_t arity = vcode::arity(kOp);
  static constexpr Type operand(std::size_t k) {
    return to_type(vcode::operand_type(kOp, to_keyword(kType), k));
  }
  static constexpr Type result = to_type(vcode::result_type_of(kOp, to_keyword(kType)));
  template <std::size_t k>
  using In = host_t<operand(k)>;
  using Out = host_t<result>;
};

// Whether Sem is an INT division whose divisor must be checked first (cvl_sem::Div, Mod).
template <class Sem>
inline constexpr bool checks_divisor = requires { Sem::traps(0, 0); };

// The interpreter has checked types and families before a backend dispatches, so these are bugs.
[[noreturn]] inline void throw_not_defined(vcode::Op op, Type type) {
  throw InternalError(std::string(vcode::spelling(op)) + " is not defined on " + type_name(type));
}

namespace detail {
template <vcode::Op kOp, class Sem, class F>
decltype(auto) visit_types(Type type, F& f) {
  switch (type) {
    case Type::Int:
      if constexpr (takes_type(kOp, Type::Int)) return f.template operator()<kOp, Sem, Type::Int>();
      break;
    case Type::Float:
      if constexpr (takes_type(kOp, Type::Float))
        return f.template operator()<kOp, Sem, Type::Float>();
      break;
    case Type::Bool:
      if constexpr (takes_type(kOp, Type::Bool))
        return f.template operator()<kOp, Sem, Type::Bool>();
      break;
  }
  throw_not_defined(kOp, type);
}

template <vcode::Family... kFamilies, class F>
decltype(auto) visit_families(vcode::Op op, Type type, F& f, const char* what) {
  switch (op) {
#define X(id, spelling, syntax, types, implied, family, sem, cost, shape, args, results, lengths, meaning) \
  case vcode::Op::id:                                                                           \
    if constexpr (((vcode::Family::family == kFamilies) || ...))                                \
      return visit_types<vcode::Op::id, cvl_sem::sem>(type, f);                                 \
    break;
#include "vcode/ops.def"
#undef X
  }
  throw InternalError(std::string(vcode::spelling(op)) + " is not " + what);
}
}  // namespace detail

// f.template operator()<kOp, Sem, kType>() for an elementwise op: Sem is its cvl_sem struct,
// kType the element type it is applied with (Signature<kOp, kType> gives operand and result
// types). Throws cvl::InternalError for an op that is not elementwise or a type it does not take.
template <class F>
decltype(auto) visit_elementwise(vcode::Op op, Type type, F&& f) {
  return detail::visit_families<vcode::Family::Elementwise>(op, type, f,
                                                            "an elementwise operation");
}

// The same for a scan or reduction: Sem is its combiner (apply and identity), kType the element
// type of its values.
template <class F>
decltype(auto) visit_combiner(vcode::Op op, Type type, F&& f) {
  return detail::visit_families<vcode::Family::Scan, vcode::Family::Reduce>(
      op, type, f, "a scan or reduction");
}

}  // namespace cvl
