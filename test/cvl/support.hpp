// Shared pieces of the CVL conformance suite: the backends under test, host <-> backend helpers,
// segment layouts, random data, and a naive host model of each operation to compare against.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cvl/backend.hpp"
#include "cvl/checking_backend.hpp"

namespace cvl_test {

using cvl::Type;
using vcode::Op;
using Ints = std::vector<std::int32_t>;
using Floats = std::vector<double>;
using Bools = std::vector<std::uint8_t>;

// The backends one executable tests (defined once per executable, e.g. backends_cpu.cpp).
struct BackendFactory {
  std::string name;
  std::function<std::unique_ptr<cvl::Backend>(cvl::FloatRankOrder)> factory;
  // The transcendental functions (ops.def Cost Compute, but SQRT) come from another math
  // library than glibc, whose results may differ from glibc's by a few ulps (a GPU's, or
  // SLEEF in cvl-cpu's fast mode); the others call glibc and match it bit for bit.
  bool device_libm = false;

  // The backend behind a CheckingBackend: every call the suite makes is checked against the
  // shape contract too.
  std::unique_ptr<cvl::Backend> make(
      cvl::FloatRankOrder order = cvl::FloatRankOrder::Correct) const {
    return cvl::checked(factory(order));
  }
};
const std::vector<BackendFactory>& conformance_backends();

// The sequential CPU backend: results of every other backend are compared with it.
cvl::Backend& reference_backend();

// Runs the rest of the test once per backend, as a Catch2 generator; failures name it.
#define CVL_BACKEND(var) CVL_BACKEND_WITH_RANK_ORDER(var, ::cvl::FloatRankOrder::Correct)
#define CVL_BACKEND_WITH_RANK_ORDER(var, order)                                         \
  const auto& var##_factory = GENERATE(from_range(::cvl_test::conformance_backends())); \
  INFO("backend " << var##_factory.name);                                               \
  const auto var##_owner = var##_factory.make(order);                                   \
  ::cvl::Backend& var = *var##_owner

// ---- host <-> backend ------------------------------------------------------------------------

cvl::Vector ints(cvl::Backend& b, const Ints& values);
cvl::Vector floats(cvl::Backend& b, const Floats& values);
cvl::Vector bools(cvl::Backend& b, const Bools& values);
cvl::Segdes segdes(cvl::Backend& b, const Ints& lengths);

Ints to_ints(cvl::Backend& b, const cvl::Vector& v);
Floats to_floats(cvl::Backend& b, const cvl::Vector& v);
Bools to_bools(cvl::Backend& b, const cvl::Vector& v);
Ints lengths_of(cvl::Backend& b, const cvl::Segdes& sd);

// Elementwise op on the given operands: copied handles stay shared, moved-in ones are the last.
// (Not an initializer list: its elements are copied, so nothing could ever be moved in.)
template <class... Operands>
cvl::Vector ew(cvl::Backend& b, Op op, Type type, Operands&&... operands) {
  std::vector<cvl::Vector> list;
  (list.push_back(std::forward<Operands>(operands)), ...);
  return b.elementwise(op, type, list);
}

// A vector of any element type on the host, for tests written once for all types.
struct HostVector {
  Type type = Type::Int;
  Ints i;
  Floats f;
  Bools b;
  std::size_t size() const {
    return type == Type::Int ? i.size() : type == Type::Float ? f.size() : b.size();
  }
};
cvl::Vector upload(cvl::Backend& b, const HostVector& h);
HostVector download(cvl::Backend& b, const cvl::Vector& v);

// Equality: exact (bitwise for FLOAT, NaNs of any sign equal); FLOAT within a relative 1e-9 of
// the larger magnitude or of the smallest normal double, whichever is larger (regrouped sums
// and products; below the normal range a product keeps fewer bits); FLOAT within 2 units in the
// last place (a device math library's transcendentals, spec/CVL.md §8.2).
bool same_float(double a, double b);
bool close_float(double a, double b);
bool within_ulps(double a, double b, std::uint64_t ulps);
enum class FloatMatch { Exact, Relative, Ulps };
std::string describe(const HostVector& h, std::size_t limit = 12);
// How `backend`'s FLOAT results of elementwise `op` match glibc's: within ulps for a
// transcendental on a device math library, else exactly.
FloatMatch libm_match(const BackendFactory& backend, Op op);
// Checks two host vectors are equal (FLOAT as `match` says); reports the first difference.
void check_equal(const HostVector& actual, const HostVector& expected, FloatMatch match);
void check_equal(const HostVector& actual, const HostVector& expected, bool approximate = false);
void check_equal(const Ints& actual, const Ints& expected);

// ---- layouts and random data -----------------------------------------------------------------

enum class Layout {
  NoSegments,      // m = 0
  OneEmpty,        // one segment of length 0
  One,             // one segment of all n elements
  Singles,         // n segments of length 1
  Tiny,            // lengths 0..4, empty segments included
  GiantAmongTiny,  // tiny segments around one holding most elements
  Mixed,           // lengths spread over several orders of magnitude
};
inline constexpr Layout kAllLayouts[] = {
    Layout::NoSegments, Layout::OneEmpty,       Layout::One,  Layout::Singles,
    Layout::Tiny,       Layout::GiantAmongTiny, Layout::Mixed};
const char* layout_name(Layout layout);
// Segment lengths of the layout totalling about n elements.
Ints make_lengths(Layout layout, std::size_t n, std::mt19937_64& rng);
std::size_t total_of(const Ints& lengths);

// Random data: INT in [lo, hi], FLOAT uniform in [lo, hi), BOOL with probability p of T.
Ints random_ints(std::size_t n, std::int32_t lo, std::int32_t hi, std::mt19937_64& rng);
Floats random_floats(std::size_t n, double lo, double hi, std::mt19937_64& rng);
Bools random_bools(std::size_t n, double p, std::mt19937_64& rng);
HostVector random_vector(Type type, std::size_t n, std::mt19937_64& rng);

// ---- the host model (straight from spec/CVL.md, no cleverness) -------------------------------

std::vector<std::size_t> offsets_of(const Ints& lengths);
HostVector model_scan(Op op, const HostVector& v, const Ints& lengths);
HostVector model_reduce(Op op, const HostVector& v, const Ints& lengths);
Ints model_rank(Op op, const HostVector& v, const Ints& lengths, bool legacy);

}  // namespace cvl_test
