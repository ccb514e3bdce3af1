// Handles and element types shared by the interpreter and every vector library (CVL) backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cvl/errors.hpp"
#include "cvl/length.hpp"

namespace cvl {

// Element types of VCODE vectors. Host representations: Int = int32_t, Float = double,
// Bool = uint8_t holding 0 or 1.
enum class Type : std::uint8_t { Int, Float, Bool };

template <Type T> struct HostType;
template <> struct HostType<Type::Int> { using type = std::int32_t; };
template <> struct HostType<Type::Float> { using type = double; };
template <> struct HostType<Type::Bool> { using type = std::uint8_t; };
template <Type T> using host_t = typename HostType<T>::type;

inline constexpr std::size_t element_size(Type t) {
  return t == Type::Float ? sizeof(double) : t == Type::Int ? sizeof(std::int32_t) : 1;
}
// Element-width dispatch for ops that only move data: f.template operator()<Bits>() with an
// unsigned type of the element's size (BOOL 1 byte, INT 4, FLOAT 8).
template <class F>
decltype(auto) with_element_bits(Type type, F&& f) {
  switch (element_size(type)) {
    case 1:
      return f.template operator()<std::uint8_t>();
    case 4:
      return f.template operator()<std::uint32_t>();
    default:
      return f.template operator()<std::uint64_t>();
  }
}

inline constexpr const char* type_name(Type t) {  // the names of spec/VCODE.md §7
  return t == Type::Int ? "Int" : t == Type::Float ? "Float" : "Bool";
}

// Backend-owned memory behind a handle. Each backend derives its own storage from this;
// nothing outside the backend looks inside.
struct Storage {
  virtual ~Storage() = default;
};

// A vector: the element type is known on the host, and the length either known or pending on
// the device with a host bound (cvl/length.hpp). Handles are values; the data is shared and
// immutable while more than one handle refers to it. A backend may reuse the storage of an input
// it received by value as its output when `storage.use_count() == 1` (the interpreter moves
// last-use operands in).
struct Vector {
  Type type = Type::Int;
  Length length;
  std::shared_ptr<Storage> storage;
};

// A segment descriptor: `segments` segments whose lengths sum to `total`.
struct Segdes {
  Length segments;
  Length total;
  std::shared_ptr<Storage> storage;
};

}  // namespace cvl
