// Helpers and the host model of the conformance suite (see support.hpp).
#include "support.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>

#include "cvl_cpu/cvl_cpu.hpp"

namespace cvl_test {

cvl::Backend& reference_backend() {
  static const auto backend =
      cvl::make_cpu_backend(cvl::BackendOptions{1, cvl::FloatRankOrder::Correct});
  return *backend;
}

// ---- host <-> backend ------------------------------------------------------------------------

cvl::Vector ints(cvl::Backend& b, const Ints& values) {
  return b.upload(Type::Int, values.data(), values.size());
}
cvl::Vector floats(cvl::Backend& b, const Floats& values) {
  return b.upload(Type::Float, values.data(), values.size());
}
cvl::Vector bools(cvl::Backend& b, const Bools& values) {
  return b.upload(Type::Bool, values.data(), values.size());
}
cvl::Segdes segdes(cvl::Backend& b, const Ints& lengths) { return b.make_segdes(ints(b, lengths)); }

template <class T>
static std::vector<T> fetch(cvl::Backend& b, const cvl::Vector& v, Type type) {
  REQUIRE(v.type == type);
  std::vector<T> out(v.length);
  b.download(v, 0, v.length, out.data());
  return out;
}
Ints to_ints(cvl::Backend& b, const cvl::Vector& v) { return fetch<std::int32_t>(b, v, Type::Int); }
Floats to_floats(cvl::Backend& b, const cvl::Vector& v) { return fetch<double>(b, v, Type::Float); }
Bools to_bools(cvl::Backend& b, const cvl::Vector& v) {
  return fetch<std::uint8_t>(b, v, Type::Bool);
}
Ints lengths_of(cvl::Backend& b, const cvl::Segdes& sd) {
  return to_ints(b, b.segment_lengths(sd));
}

cvl::Vector upload(cvl::Backend& b, const HostVector& h) {
  switch (h.type) {
    case Type::Int:
      return ints(b, h.i);
    case Type::Float:
      return floats(b, h.f);
    default:
      return bools(b, h.b);
  }
}

HostVector download(cvl::Backend& b, const cvl::Vector& v) {
  HostVector h;
  h.type = v.type;
  switch (v.type) {
    case Type::Int:
      h.i = to_ints(b, v);
      break;
    case Type::Float:
      h.f = to_floats(b, v);
      break;
    default:
      h.b = to_bools(b, v);
      break;
  }
  return h;
}

bool same_float(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool close_float(double a, double b) {
  if (same_float(a, b) || a == b) return true;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return false;
  const double scale =
      std::max({std::abs(a), std::abs(b), std::numeric_limits<double>::min()});
  return std::abs(a - b) <= 1e-9 * scale;
}

bool within_ulps(double a, double b, std::uint64_t ulps) {
  if (same_float(a, b) || a == b) return true;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return false;
  if (std::signbit(a) != std::signbit(b)) return false;
  const auto x = std::bit_cast<std::uint64_t>(std::abs(a));
  const auto y = std::bit_cast<std::uint64_t>(std::abs(b));
  return (x > y ? x - y : y - x) <= ulps;  // adjacent doubles of one sign differ by 1 in bits
}

// A device's libm and the host's each stray from the true value by up to about 2 ulps (CUDA's and
// glibc's published bounds for tanh, sinh, pow...), in either direction, so they may differ by 4.
constexpr std::uint64_t kDeviceLibmUlps = 4;

FloatMatch libm_match(const BackendFactory& backend, Op op) {
  const bool transcendental = vcode::info(op).cost == vcode::Cost::Compute && op != Op::Sqrt;
  return backend.device_libm && transcendental ? FloatMatch::Ulps : FloatMatch::Exact;
}

static std::string element(const HostVector& h, std::size_t i) {
  std::ostringstream out;
  out.precision(17);
  if (h.type == Type::Int)
    out << h.i[i];
  else if (h.type == Type::Float)
    out << h.f[i];
  else
    out << (h.b[i] ? 'T' : 'F');
  return out.str();
}

std::string describe(const HostVector& h, std::size_t limit) {
  std::string s = std::string(cvl::type_name(h.type)) + "(";
  for (std::size_t i = 0; i < std::min(limit, h.size()); ++i) {
    if (i) s += ' ';
    s += element(h, i);
  }
  if (h.size() > limit) s += " ... [" + std::to_string(h.size()) + "]";
  return s + ")";
}

void check_equal(const HostVector& actual, const HostVector& expected, bool approximate) {
  check_equal(actual, expected, approximate ? FloatMatch::Relative : FloatMatch::Exact);
}

void check_equal(const HostVector& actual, const HostVector& expected, FloatMatch match) {
  REQUIRE(actual.type == expected.type);
  REQUIRE(actual.size() == expected.size());
  auto float_equal = [match](double a, double e) {
    return match == FloatMatch::Relative ? close_float(a, e)
           : match == FloatMatch::Ulps   ? within_ulps(a, e, kDeviceLibmUlps)
                                         : same_float(a, e);
  };
  for (std::size_t i = 0; i < actual.size(); ++i) {
    bool equal = actual.type == Type::Int    ? actual.i[i] == expected.i[i]
                 : actual.type == Type::Bool ? actual.b[i] == expected.b[i]
                                             : float_equal(actual.f[i], expected.f[i]);
    if (!equal) {
      FAIL("first difference at " << i << ": " << element(actual, i) << " instead of "
                                  << element(expected, i) << "\n  actual   " << describe(actual)
                                  << "\n  expected " << describe(expected));
    }
  }
}

void check_equal(const Ints& actual, const Ints& expected) {
  HostVector a, e;
  a.i = actual;
  e.i = expected;
  check_equal(a, e);
}

// ---- layouts and random data -----------------------------------------------------------------

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::NoSegments:
      return "no segments";
    case Layout::OneEmpty:
      return "one empty segment";
    case Layout::One:
      return "one segment";
    case Layout::Singles:
      return "one-element segments";
    case Layout::Tiny:
      return "tiny segments";
    case Layout::GiantAmongTiny:
      return "one giant segment among tiny ones";
    case Layout::Mixed:
      return "mixed segment sizes";
  }
  return "?";
}

Ints make_lengths(Layout layout, std::size_t n, std::mt19937_64& rng) {
  auto len = [](std::size_t x) { return static_cast<std::int32_t>(x); };
  Ints lengths;
  switch (layout) {
    case Layout::NoSegments:
      break;
    case Layout::OneEmpty:
      lengths = {0};
      break;
    case Layout::One:
      lengths = {len(n)};
      break;
    case Layout::Singles:
      lengths.assign(n, 1);
      break;
    case Layout::Tiny: {
      std::uniform_int_distribution<int> tiny(0, 4);
      for (std::size_t total = 0; total < n;) {
        lengths.push_back(std::min(tiny(rng), len(n - total)));
        total += static_cast<std::size_t>(lengths.back());
      }
      break;
    }
    case Layout::GiantAmongTiny: {
      std::uniform_int_distribution<int> tiny(0, 3);
      std::size_t around = n / 10, total = 0;
      while (total < around / 2) {
        lengths.push_back(tiny(rng));
        total += static_cast<std::size_t>(lengths.back());
      }
      lengths.push_back(len(n - around));
      total += n - around;
      while (total < n) {
        lengths.push_back(std::min(tiny(rng), len(n - total)));
        total += static_cast<std::size_t>(lengths.back());
      }
      break;
    }
    case Layout::Mixed: {
      std::uniform_int_distribution<int> magnitude(0, 5);
      for (std::size_t total = 0; total < n;) {
        int limit = 1;
        for (int e = magnitude(rng); e > 0; --e) limit *= 8;
        std::uniform_int_distribution<int> size(0, limit);
        lengths.push_back(std::min(size(rng), len(n - total)));
        total += static_cast<std::size_t>(lengths.back());
      }
      break;
    }
  }
  return lengths;
}

std::size_t total_of(const Ints& lengths) {
  return static_cast<std::size_t>(std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0}));
}

Ints random_ints(std::size_t n, std::int32_t lo, std::int32_t hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int32_t> dist(lo, hi);
  Ints v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

Floats random_floats(std::size_t n, double lo, double hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(lo, hi);
  Floats v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

Bools random_bools(std::size_t n, double p, std::mt19937_64& rng) {
  std::bernoulli_distribution dist(p);
  Bools v(n);
  for (auto& x : v) x = dist(rng) ? 1 : 0;
  return v;
}

HostVector random_vector(Type type, std::size_t n, std::mt19937_64& rng) {
  HostVector h;
  h.type = type;
  if (type == Type::Int)
    h.i = random_ints(n, -1000000, 1000000, rng);
  else if (type == Type::Float)
    h.f = random_floats(n, -1000.0, 1000.0, rng);
  else
    h.b = random_bools(n, 0.5, rng);
  return h;
}

// ---- the host model --------------------------------------------------------------------------

std::vector<std::size_t> offsets_of(const Ints& lengths) {
  std::vector<std::size_t> offsets(lengths.size() + 1, 0);
  for (std::size_t k = 0; k < lengths.size(); ++k)
    offsets[k + 1] = offsets[k] + static_cast<std::size_t>(lengths[k]);
  return offsets;
}

namespace {

constexpr double kHuge = static_cast<double>(1.0e36f);

enum class Combine { Plus, Times, Max, Min, And, Or, Xor };

Combine combine_of(Op op) {
  switch (op) {
    case Op::PlusScan:
    case Op::PlusReduce:
      return Combine::Plus;
    case Op::MulScan:
    case Op::MulReduce:
      return Combine::Times;
    case Op::MaxScan:
    case Op::MaxReduce:
      return Combine::Max;
    case Op::MinScan:
    case Op::MinReduce:
      return Combine::Min;
    case Op::AndScan:
    case Op::AndReduce:
      return Combine::And;
    case Op::OrScan:
    case Op::OrReduce:
      return Combine::Or;
    default:
      return Combine::Xor;
  }
}

std::int32_t combine(Combine c, std::int32_t s, std::int32_t x) {
  auto us = static_cast<std::uint32_t>(s), ux = static_cast<std::uint32_t>(x);
  switch (c) {
    case Combine::Plus:
      return static_cast<std::int32_t>(us + ux);
    case Combine::Times:
      return static_cast<std::int32_t>(us * ux);
    case Combine::Max:
      return s > x ? s : x;
    case Combine::Min:
      return s < x ? s : x;
    case Combine::And:
      return s & x;
    case Combine::Or:
      return s | x;
    case Combine::Xor:
      return s ^ x;
  }
  return 0;
}
double combine(Combine c, double s, double x) {
  switch (c) {
    case Combine::Plus:
      return s + x;
    case Combine::Times:
      return s * x;
    case Combine::Max:
      return s > x ? s : x;
    default:
      return s < x ? s : x;
  }
}
std::uint8_t combine(Combine c, std::uint8_t s, std::uint8_t x) {
  switch (c) {
    case Combine::And:
      return s && x;
    case Combine::Or:
      return s || x;
    default:
      return (!!s) ^ (!!x);
  }
}

std::int32_t int_identity(Combine c) {
  switch (c) {
    case Combine::Times:
      return 1;
    case Combine::Max:
      return std::numeric_limits<std::int32_t>::min();
    case Combine::Min:
      return std::numeric_limits<std::int32_t>::max();
    case Combine::And:
      return -1;
    default:
      return 0;
  }
}
double float_identity(Combine c) {
  return c == Combine::Times ? 1.0 : c == Combine::Max ? -kHuge : c == Combine::Min ? kHuge : 0.0;
}
std::uint8_t bool_identity(Combine c) { return c == Combine::And ? 1 : 0; }

template <class T>
std::vector<T> scan_of(Combine c, const std::vector<T>& v, const Ints& lengths, T identity) {
  std::vector<T> out(v.size());
  auto offsets = offsets_of(lengths);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    T acc = identity;
    for (std::size_t i = offsets[k]; i < offsets[k + 1]; ++i) {
      out[i] = acc;
      acc = combine(c, acc, v[i]);
    }
  }
  return out;
}

template <class T>
std::vector<T> reduce_of(Combine c, const std::vector<T>& v, const Ints& lengths, T identity) {
  std::vector<T> out(lengths.size());
  auto offsets = offsets_of(lengths);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    T acc = identity;
    for (std::size_t i = offsets[k]; i < offsets[k + 1]; ++i) acc = combine(c, acc, v[i]);
    out[k] = acc;
  }
  return out;
}

}  // namespace

HostVector model_scan(Op op, const HostVector& v, const Ints& lengths) {
  Combine c = combine_of(op);
  HostVector out;
  out.type = v.type;
  if (v.type == Type::Int)
    out.i = scan_of(c, v.i, lengths, int_identity(c));
  else if (v.type == Type::Float)
    out.f = scan_of(c, v.f, lengths, float_identity(c));
  else
    out.b = scan_of(c, v.b, lengths, bool_identity(c));
  return out;
}

HostVector model_reduce(Op op, const HostVector& v, const Ints& lengths) {
  Combine c = combine_of(op);
  HostVector out;
  out.type = v.type;
  if (v.type == Type::Int)
    out.i = reduce_of(c, v.i, lengths, int_identity(c));
  else if (v.type == Type::Float)
    out.f = reduce_of(c, v.f, lengths, float_identity(c));
  else
    out.b = reduce_of(c, v.b, lengths, bool_identity(c));
  return out;
}

// Rank by stable sort of each segment. FLOAT keys follow CVL.md §6.2 (IEEE total order) or
// §6.3 (the legacy tuple (k2, k1)).
Ints model_rank(Op op, const HostVector& v, const Ints& lengths, bool legacy) {
  const bool down = op == Op::RankDown;
  std::vector<std::uint64_t> keys(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v.type == Type::Int) {
      keys[i] = static_cast<std::uint64_t>(static_cast<std::int64_t>(v.i[i]) + 2147483648LL);
    } else {
      auto bits = std::bit_cast<std::uint64_t>(v.f[i]);
      if (!legacy) {
        keys[i] = (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
      } else {
        auto high = static_cast<std::uint32_t>(bits >> 32), low = static_cast<std::uint32_t>(bits);
        bool s = (low >> 31) != 0;
        std::uint32_t k1 = s ? ~high : high, k2 = s ? ~low : low ^ 0x80000000u;
        keys[i] = (static_cast<std::uint64_t>(k2) << 32) | k1;
      }
    }
  }
  Ints rank(v.size());
  auto offsets = offsets_of(lengths);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    std::vector<std::size_t> order(static_cast<std::size_t>(lengths[k]));
    std::iota(order.begin(), order.end(), offsets[k]);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return down ? keys[a] > keys[b] : keys[a] < keys[b];
    });
    for (std::size_t p = 0; p < order.size(); ++p) rank[order[p]] = static_cast<std::int32_t>(p);
  }
  return rank;
}

}  // namespace cvl_test
