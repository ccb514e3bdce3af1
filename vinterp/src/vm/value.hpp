// What a stack slot holds: a vector, a segment descriptor or a pair, as a cheap handle.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cvl/types.hpp"
#include "vcode/op.hpp"

namespace vm {

enum class Kind : std::uint8_t { Int, Float, Bool, Segdes, Pair };

const char* kind_name(Kind kind);  // "Int", "Float", "Bool", "Segdes", "Pair" (spec §7)

inline bool is_vector(Kind kind) { return kind <= Kind::Bool; }
inline cvl::Type element_type(Kind kind) { return static_cast<cvl::Type>(kind); }
inline Kind vector_kind(cvl::Type type) { return static_cast<Kind>(type); }
Kind kind_of(vcode::TypeKeyword keyword);  // CHAR is an INT vector

struct Value {
  Kind kind = Kind::Int;
  std::size_t length = 0;    // vector: its elements (0 for a segdes or a pair)
  std::size_t segments = 0;  // segdes: its segments
  std::size_t total = 0;     // segdes: the elements it describes
  std::shared_ptr<cvl::Storage> storage;

  static Value of(cvl::Vector v) {
    return {vector_kind(v.type), v.length, 0, 0, std::move(v.storage)};
  }
  static Value of(cvl::Segdes s) {
    return {Kind::Segdes, 0, s.segments, s.total, std::move(s.storage)};
  }

  // Moves the handle out as a backend operand (the slot is left empty).
  cvl::Vector take_vector() { return {element_type(kind), length, std::move(storage)}; }
  cvl::Segdes take_segdes() { return {segments, total, std::move(storage)}; }
  cvl::Vector vector() const { return {element_type(kind), length, storage}; }
  cvl::Segdes segdes() const { return {segments, total, storage}; }
};

// A PAIR groups two values into one stack entry.
struct PairStorage : cvl::Storage {
  Value first, second;
};

inline const PairStorage& pair_of(const Value& v) {
  return static_cast<const PairStorage&>(*v.storage);
}

}  // namespace vm
