// Hand-written black-scholes (neslgpu-bench/black-scholes): n European call options with
// S = rand(100.0), X = rand(100.0), T = rand(1.0), r = rand(0.05), v = rand(0.4), drawn in that
// order, one vector after another. The timed region prices all of them; the program prints the
// price of option 0, then the time.
//
// The NESL program's cumulative normal is not the textbook one, and this file computes what it
// computes, operation for operation: with L = |d| and k = 1 / (1 + 0.2316419 L),
//   w = 1 - (1/sqrt(2 pi)) exp(-L L / 2) (a1 k + a2 k k + a3 e^3 ln k + a4 e^4 ln k + a5 e^5 ln k)
// (its power function `pow4(k, n)` is exp(n) * ln(k)), and CND(d) = w, or 1 - w for d < 0.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common.hpp"
#include "vector_math.hpp"

namespace {

constexpr double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
constexpr double k_factor = 0.2316419;

struct Inputs {
  std::vector<double> S, X, T, r, v;
};

// The constants the NESL program recomputes on every call, computed once with the C library.
struct Constants {
  double inverse_sqrt_2pi, e3, e4, e5;
  Constants() {
    const double pi = 4.0 * std::atan(1.0);
    inverse_sqrt_2pi = 1.0 / std::sqrt(2.0 * pi);
    e3 = std::exp(3.0), e4 = std::exp(4.0), e5 = std::exp(5.0);
  }
};

// CND given L = |d|, exp(-L L / 2) and ln k, in the NESL program's order of operations.
inline double cnd(double d, double k, double density_exp, double ln_k, const Constants& c) {
  double poly = a1 * k + (a2 * k) * k;
  poly = poly + a3 * (c.e3 * ln_k);
  poly = poly + a4 * (c.e4 * ln_k);
  poly = poly + a5 * (c.e5 * ln_k);
  const double w = 1.0 - (c.inverse_sqrt_2pi * density_exp) * poly;
  return d < 0.0 ? 1.0 - w : w;
}

// The plain way: one option at a time with the C library (--verify's reference).
double price_one(double S, double X, double T, double r, double v, const Constants& c) {
  const double v_sqrt_T = v * std::sqrt(T);
  const double d1 = (std::log(S / X) + (r + (v * v) / 2.0) * T) / v_sqrt_T;
  const double d2 = d1 - v_sqrt_T;
  auto cnd_of = [&](double d) {
    const double L = std::fabs(d);
    const double k = 1.0 / (1.0 + k_factor * L);
    return cnd(d, k, std::exp((-L * L) / 2.0), std::log(k), c);
  };
  return S * cnd_of(d1) - (X * std::exp(-r * T)) * cnd_of(d2);
}

// The fast way: blocks of options, transcendental functions over arrays (SLEEF where built),
// the rest in loops the compiler vectorizes; blocks spread over the threads.
void price_all(const Inputs& o, std::vector<double>& price, const Constants& c) {
  constexpr long block = 512;
  const long n = static_cast<long>(price.size());
#pragma omp parallel
  {
    // Per block: [0] S/X then its log, [1] exp(-L1 L1/2), [2] ln k1, [3] exp(-L2 L2/2), [4] ln k2,
    // [5] exp(-r T); d1, d2, k1, k2 in their own arrays.
    std::vector<double> scratch(6 * block), d1(block), d2(block), k1(block), k2(block);
    double* t[6];
    for (int j = 0; j < 6; ++j) t[j] = scratch.data() + j * block;
#pragma omp for schedule(static)
    for (long start = 0; start < n; start += block) {
      const long m = std::min(block, n - start);
      const double *S = &o.S[start], *X = &o.X[start], *T = &o.T[start], *r = &o.r[start], *v = &o.v[start];
      for (long i = 0; i < m; ++i) t[0][i] = S[i] / X[i];
      baseline::log_array(t[0], t[0], m);
      for (long i = 0; i < m; ++i) {
        const double v_sqrt_T = v[i] * std::sqrt(T[i]);
        d1[i] = (t[0][i] + (r[i] + (v[i] * v[i]) / 2.0) * T[i]) / v_sqrt_T;
        d2[i] = d1[i] - v_sqrt_T;
        const double L1 = std::fabs(d1[i]), L2 = std::fabs(d2[i]);
        k1[i] = 1.0 / (1.0 + k_factor * L1);
        k2[i] = 1.0 / (1.0 + k_factor * L2);
        t[1][i] = (-L1 * L1) / 2.0;
        t[3][i] = (-L2 * L2) / 2.0;
        t[5][i] = -r[i] * T[i];
      }
      baseline::exp_array(t[1], t[1], m);
      baseline::exp_array(t[3], t[3], m);
      baseline::exp_array(t[5], t[5], m);
      baseline::log_array(k1.data(), t[2], m);
      baseline::log_array(k2.data(), t[4], m);
      for (long i = 0; i < m; ++i)
        price[start + i] = S[i] * cnd(d1[i], k1[i], t[1][i], t[2][i], c) -
                           (X[i] * t[5][i]) * cnd(d2[i], k2[i], t[3][i], t[4][i], c);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = baseline::parse_options(argc, argv, "baseline_black_scholes", 10000000);
  const long n = options.size;
  Inputs o;
  for (auto [vector, scale] : {std::pair{&o.S, 100.0}, {&o.X, 100.0}, {&o.T, 1.0}, {&o.r, 0.05}, {&o.v, 0.4}}) {
    vector->resize(n);
    for (auto& x : *vector) x = baseline::nesl_rand_float(scale);
  }
  const Constants constants;
  std::vector<double> price(n);
  baseline::warm_up_threads();

  const baseline::Timer timer;
  price_all(o, price, constants);
  const double seconds = timer.seconds();

  bool ok = true;
  if (options.verify) {
    std::fprintf(stderr, "vector math: %s\n", baseline::vector_math_description());
    std::vector<double> reference(n);
    for (long i = 0; i < n; ++i) reference[i] = price_one(o.S[i], o.X[i], o.T[i], o.r[i], o.v[i], constants);
    ok = baseline::agree("black-scholes prices", price, reference);
  }
  baseline::print_float(price[0]);
  baseline::print_float(seconds);
  return ok ? 0 : 1;
}
