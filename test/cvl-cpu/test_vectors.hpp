// Small vectors for cvl-cpu's own tests: a context, INT vectors from values, and elements back.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "families/families.hpp"
#include "fused/fused.hpp"

namespace cvl::cpu {

inline Context context(int threads, bool lazy, bool fast = false) {
  Context ctx;
  ctx.par.threads = threads;
  ctx.lazy = lazy;
  ctx.fast_math = fast;
  ctx.evaluator = &fused_evaluator();
  return ctx;
}

inline Vector ints(const std::vector<std::int32_t>& values) {
  Vector v = allocate(Type::Int, values.size());
  std::memcpy(elements<std::int32_t>(v), values.data(), values.size() * sizeof(std::int32_t));
  return v;
}

template <class T>
std::vector<T> values_of(const Vector& v) {
  const T* e = elements<T>(v);
  return std::vector<T>(e, e + v.length);
}

// The elements of a vector of any type as bits, to compare every kind exactly.
inline std::vector<std::uint64_t> bits_of(const Vector& v) {
  std::vector<std::uint64_t> bits(v.length);
  for (std::size_t i = 0; i < v.length; ++i)
    bits[i] = v.type == Type::Float ? std::bit_cast<std::uint64_t>(elements<double>(v)[i])
              : v.type == Type::Bool ? elements<std::uint8_t>(v)[i]
                                     : static_cast<std::uint32_t>(elements<std::int32_t>(v)[i]);
  return bits;
}

}  // namespace cvl::cpu
