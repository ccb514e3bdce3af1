// What the program generator knows about the stack at each point of a generated program: the kind
// of every entry, which entries have equal lengths (length classes), and the value facts that make
// the next instruction valid (INT ranges for divisors, indices and segment lengths; FLOAT facts
// that make + and * folds give the same result in any grouping).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace fuzz {

enum class Kind : std::uint8_t { Int, Float, Bool, Segdes, Pair };

inline const char* keyword(Kind k) {
  switch (k) {
    case Kind::Int: return "INT";
    case Kind::Float: return "FLOAT";
    case Kind::Bool: return "BOOL";
    case Kind::Segdes: return "SEGDES";
    case Kind::Pair: break;
  }
  return "PAIR";
}

// Vectors of one length class have equal lengths by construction. A class of known size is
// shared by every vector of that size; a class of unknown size (a PACK result, a descriptor made
// from data) belongs to the values computed from it.
struct LengthClass {
  std::int64_t size = -1;   // -1: not known when the program is written
  std::int64_t bound = 0;   // the largest length it can have
};

inline constexpr std::int64_t int_min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();

struct Entry;
using PairParts = std::shared_ptr<const std::pair<Entry, Entry>>;

struct Entry {
  Kind kind = Kind::Int;
  int len = -1;  // vectors: the length class

  // INT: every element lies in [lo, hi].
  std::int64_t lo = int_min, hi = int_max;

  // FLOAT, for folds that regroup (threads, the GPU): when int_mag >= 0 every finite element is an
  // integer of magnitude at most int_mag (so sums are exact while n * int_mag < 2^53); when unit,
  // every finite element is -1, -0, 0 or 1 (so products are exact). NaN and infinities are
  // allowed in both: they give the same result in any grouping.
  double int_mag = -1;
  bool unit = false;

  // SEGDES: the classes of its segment count and of its total, and whether no segment is empty.
  int segs = -1, total = -1;
  bool nonempty = false;

  PairParts parts;  // PAIR

  // The generator's name for this value: a COPY keeps it, every instruction's result gets a new
  // one. Not a fact about the value.
  std::uint64_t tag = 0;

  bool is_vector() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool nonneg() const { return kind == Kind::Int && lo >= 0; }
  bool sums_exactly(std::int64_t n) const { return int_mag >= 0 && int_mag * double(n) < 9.0e15; }
};

inline Entry vector_entry(Kind kind, int len) {
  Entry e;
  e.kind = kind;
  e.len = len;
  return e;
}

inline Entry int_entry(int len, std::int64_t lo, std::int64_t hi) {
  Entry e = vector_entry(Kind::Int, len);
  e.lo = std::max(lo, int_min);
  e.hi = std::min(hi, int_max);
  if (e.lo > e.hi) e.lo = int_min, e.hi = int_max;  // a range that wrapped: nothing known
  return e;
}

// The facts that hold of a value that is either `a` or `b` (an IF join, SELECT, a permute that
// mixes two vectors). Kinds and classes must already agree.
inline Entry join(const Entry& a, const Entry& b) {
  Entry e = a;
  e.lo = std::min(a.lo, b.lo);
  e.hi = std::max(a.hi, b.hi);
  e.int_mag = (a.int_mag >= 0 && b.int_mag >= 0) ? std::max(a.int_mag, b.int_mag) : -1;
  e.unit = a.unit && b.unit;
  e.nonempty = a.nonempty && b.nonempty;
  return e;
}

// True when a value described by `e` may stand where a function was written for `param`.
inline bool satisfies(const Entry& e, const Entry& param) {
  if (e.kind != param.kind || e.kind == Kind::Pair) return false;
  if (e.kind == Kind::Segdes)
    return e.segs == param.segs && e.total == param.total && (e.nonempty || !param.nonempty);
  if (e.len != param.len) return false;
  if (e.kind == Kind::Int) return e.lo >= param.lo && e.hi <= param.hi;
  if (e.kind == Kind::Float) {
    if (param.int_mag >= 0 && !(e.int_mag >= 0 && e.int_mag <= param.int_mag)) return false;
    if (param.unit && !e.unit) return false;
  }
  return true;
}

}  // namespace fuzz
