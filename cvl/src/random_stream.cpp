// The glibc-compatible generator behind RAND (spec/CVL.md §7.2): seeding, and drawing in bulk.
#include "cvl/random.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace cvl {
namespace {

// Sums computed between moves of the history (a multiple of 3, see fill).
constexpr std::size_t kChunk = 1023;

}  // namespace

// next() computes x[n] = x[n-3] + x[n-31] (mod 2^32) and returns x[n] >> 1, through the ring,
// whose index arithmetic and store-then-reload of each sum make a chain of several cycles per
// draw. Here the sums go to a plain array and the last three stay in registers: three
// independent chains of one addition each (several times as fast as next(), and faster than a
// SIMD loop, whose loads of the sums just stored do not forward; bench/RESULTS.md).
void RandomStream::fill(std::int32_t* out, std::size_t n) {
  if (n < 2 * kDegree) {
    for (std::size_t i = 0; i < n; ++i) out[i] = next();
    return;
  }
  std::uint32_t x[kDegree + kChunk];
  for (int j = 0; j < kDegree; ++j)  // the ring's sums, oldest first
    x[j] = static_cast<std::uint32_t>(state_[(front_ + j) % kDegree]);
  std::size_t done = 0;
  while (n - done >= 3) {
    const std::size_t m = std::min(kChunk, (n - done) / 3 * 3);
    std::uint32_t a = x[kDegree - 3], b = x[kDegree - 2], c = x[kDegree - 1];
    std::int32_t* o = out + done;
    for (std::size_t j = kDegree; j < kDegree + m; j += 3) {
      a += x[j - 31];
      b += x[j - 30];
      c += x[j - 29];
      x[j] = a;
      x[j + 1] = b;
      x[j + 2] = c;
      o[j - kDegree] = static_cast<std::int32_t>(a >> 1);
      o[j - kDegree + 1] = static_cast<std::int32_t>(b >> 1);
      o[j - kDegree + 2] = static_cast<std::int32_t>(c >> 1);
    }
    std::copy(x + m, x + m + kDegree, x);  // the last sums become the history
    done += m;
  }
  for (int j = 0; j < kDegree; ++j)  // the ring: the last 31 sums, oldest at front_
    state_[j] = static_cast<std::int32_t>(x[j]);
  front_ = 0;
  rear_ = kDegree - 3;
  for (; done < n; ++done) out[done] = next();  // the last one or two
}

namespace {

// Polynomials of degree < 31 with coefficients mod 2^32, taken modulo the recurrence's
// characteristic polynomial x^31 - x^28 - 1: x^n mod it gives each sum n steps on as a linear
// combination of the current 31 (x[i + n] = sum of c[j] x[i + j] where x^n = sum of c[j] x^j).
using Poly = std::array<std::uint32_t, 31>;

// a(x) b(x) mod the characteristic polynomial.
Poly times(const Poly& a, const Poly& b) {
  std::array<std::uint32_t, 61> product{};
  for (int i = 0; i < 31; ++i)
    for (int j = 0; j < 31; ++j) product[i + j] += a[i] * b[j];
  for (int d = 60; d >= 31; --d) {  // x^d = x^(d-3) + x^(d-31)
    product[d - 3] += product[d];
    product[d - 31] += product[d];
  }
  Poly out;
  std::copy(product.begin(), product.begin() + 31, out.begin());
  return out;
}

// x a(x) mod the characteristic polynomial.
Poly times_x(const Poly& a) {
  Poly out;
  out[0] = a[30];
  for (int j = 1; j < 31; ++j) out[j] = a[j - 1];
  out[28] += a[30];
  return out;
}

}  // namespace

// The sums n steps on from the ring's, from x^n mod the characteristic polynomial (squaring and
// multiplying: a few thousand operations, where drawing n costs n).
void RandomStream::discard(std::size_t n) {
  if (n < 4 * kChunk) {
    std::int32_t scratch[kChunk];
    for (std::size_t m = 0; n > 0; n -= m) {
      m = std::min(n, kChunk);
      fill(scratch, m);
    }
    return;
  }
  Poly power{}, x{};
  power[0] = 1;
  x[1] = 1;
  for (std::size_t e = n; e > 0; e >>= 1) {
    if (e & 1) power = times(power, x);
    x = times(x, x);
  }
  std::uint32_t ring[kDegree];  // the sums, oldest first
  for (int j = 0; j < kDegree; ++j) ring[j] = static_cast<std::uint32_t>(state_[(front_ + j) % kDegree]);
  for (int k = 0; k < kDegree; ++k, power = times_x(power)) {  // the sum n + k steps on
    std::uint32_t sum = 0;
    for (int j = 0; j < kDegree; ++j) sum += power[j] * ring[j];
    state_[k] = static_cast<std::int32_t>(sum);
  }
  front_ = 0;
  rear_ = kDegree - 3;
}

void RandomStream::seed(std::uint32_t seed_value) {
  state_[0] = static_cast<std::int32_t>(seed_value == 0 ? 1 : seed_value);
  for (int i = 1; i < kDegree; ++i) {
    // 16807 * r[i-1] mod (2^31 - 1), without overflow (Schrage's method, as glibc does it).
    std::int32_t word = state_[i - 1];
    std::int32_t high = word / 127773;
    std::int32_t low = word % 127773;
    std::int32_t next = 16807 * low - 2836 * high;
    if (next < 0) next += 2147483647;
    state_[i] = next;
  }
  front_ = 3;
  rear_ = 0;
  for (int i = 0; i < 10 * kDegree; ++i) next();
}

}  // namespace cvl
