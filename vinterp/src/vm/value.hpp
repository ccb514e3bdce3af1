// What a stack slot holds: a vector, a segment descriptor or a pair, as a cheap handle.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cvl/length.hpp"
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
  Value() = default;
  Value(Kind k, cvl::Length length, cvl::Length segments, cvl::Length total,
        std::shared_ptr<cvl::Storage> s)
      : kind(k), storage(std::move(s)), length_(length), segments_(segments), total_(total) {}

  Kind kind = Kind::Int;
  std::shared_ptr<cvl::Storage> storage;

  static Value of(cvl::Vector v) {
    return {vector_kind(v.type), v.length, 0, 0, std::move(v.storage)};
  }
  static Value of(cvl::Segdes s) {
    return {Kind::Segdes, 0, s.segments, s.total, std::move(s.storage)};
  }

  // The machine reads lengths only here (cvl/length.hpp). The counts wait for a pending length;
  // the Length accessors do not (shape checks compare them without waiting, machine.hpp).
  std::size_t length() const { return length_.get(); }      // vector: elements (0 otherwise)
  std::size_t segments() const { return segments_.get(); }  // segdes: its segments
  std::size_t total() const { return total_.get(); }        // segdes: the elements it describes
  const cvl::Length& length_of() const { return length_; }
  const cvl::Length& segments_of() const { return segments_; }
  const cvl::Length& total_of() const { return total_; }

  // Moves the handle out as a backend operand (the slot is left empty).
  cvl::Vector take_vector() { return {element_type(kind), length_, std::move(storage)}; }
  cvl::Segdes take_segdes() { return {segments_, total_, std::move(storage)}; }
  cvl::Vector vector() const { return {element_type(kind), length_, storage}; }
  cvl::Segdes segdes() const { return {segments_, total_, storage}; }

 private:
  cvl::Length length_;
  cvl::Length segments_;
  cvl::Length total_;
};

// A PAIR groups two values into one stack entry.
struct PairStorage : cvl::Storage {
  Value first, second;
};

inline const PairStorage& pair_of(const Value& v) {
  return static_cast<const PairStorage&>(*v.storage);
}

}  // namespace vm
