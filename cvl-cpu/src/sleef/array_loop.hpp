// The loop every per-instruction-set file instantiates: whole vectors of `Lanes::width` doubles,
// then the tail through a padded buffer (the padding is computed and thrown away). Included only
// by those files, inside their anonymous namespace (after <cfloat> and <cmath>).
#pragma once

// Where SLEEF and the classic's libm part ways, lanes are put right after the vector call:
// - A NaN made from a number (log(-1), asin(2), sin(inf)) is the x86 default NaN, as in the exact
//   mode (cvl_sem::libm_result); SLEEF's have other signs and payloads, which order FLOAT RANK.
// - With KeepsSubnormals (the odd functions whose value at a subnormal x is x itself: sin, tan,
//   asin, atan, sinh, tanh) such an x passes through: SLEEF loses some (its tan(-4.9e-324) is
//   +0, where glibc and the classic give x), a relative error of 100% that no tolerance covers.
//
// With ReducesByVector (sin, cos, tan): SLEEF reduces the arguments of a whole vector by one of
// two methods, the slower one as soon as a lane is 1e14 or more or not finite, and the two can
// differ in the last bit. A lane's result would then depend on its neighbours, which change with
// the thread count and with FUSED's blocks (the same program could print different digits from
// run to run). So lanes below kAloneFrom are computed among such lanes only, and every other lane
// alone among infinities, which always take the slower method.
inline constexpr double kAloneFrom = 1e13;  // under SLEEF's 1e14, so as not to depend on it

template <class Lanes, auto F>
void lane_independent(const double* x, double* out) {
  constexpr std::size_t w = Lanes::width;
  bool all_ordinary = true;
  for (std::size_t j = 0; j < w; ++j) all_ordinary &= std::fabs(x[j]) < kAloneFrom;
  if (all_ordinary) {
    Lanes::store(out, F(Lanes::load(x)));
    return;
  }
  alignas(64) double ordinary[w];
  for (std::size_t j = 0; j < w; ++j) ordinary[j] = std::fabs(x[j]) < kAloneFrom ? x[j] : 0.0;
  Lanes::store(out, F(Lanes::load(ordinary)));
  for (std::size_t j = 0; j < w; ++j) {
    if (std::fabs(x[j]) < kAloneFrom) continue;
    alignas(64) double alone[w];
    for (std::size_t t = 0; t < w; ++t) alone[t] = HUGE_VAL;
    alone[0] = x[j];
    Lanes::store(alone, F(Lanes::load(alone)));
    out[j] = alone[0];
  }
}

template <class Lanes, auto F, bool KeepsSubnormals, bool ReducesByVector>
void whole_vectors(const double* in, double* out) {
  constexpr std::size_t w = Lanes::width;
  alignas(64) double x[w];  // a copy: `in` may be `out`
  for (std::size_t j = 0; j < w; ++j) x[j] = in[j];
  if constexpr (ReducesByVector)
    lane_independent<Lanes, F>(x, out);
  else
    Lanes::store(out, F(Lanes::load(x)));
  for (std::size_t j = 0; j < w; ++j) {
    if (out[j] != out[j] && x[j] == x[j]) out[j] = std::copysign(std::nan(""), -1.0);
    if (KeepsSubnormals && x[j] != 0.0 && std::fabs(x[j]) < DBL_MIN) out[j] = x[j];
  }
}

// F: SLEEF's function of Lanes::V
template <class Lanes, auto F, bool KeepsSubnormals = false, bool ReducesByVector = false>
void over_array(std::size_t n, const double* in, double* out) {
  constexpr std::size_t w = Lanes::width;
  std::size_t i = 0;
  for (; i + w <= n; i += w)
    whole_vectors<Lanes, F, KeepsSubnormals, ReducesByVector>(in + i, out + i);
  if (i == n) return;
  alignas(64) double tail[w] = {};
  for (std::size_t t = 0; i + t < n; ++t) tail[t] = in[i + t];
  whole_vectors<Lanes, F, KeepsSubnormals, ReducesByVector>(tail, tail);
  for (std::size_t t = 0; i + t < n; ++t) out[i + t] = tail[t];
}

// A table in the order of Transcendental, from SLEEF's names with the given suffix.
#define CVL_SLEEF_TABLE(Lanes, suffix)                                                         \
  {                                                                                            \
    &over_array<Lanes, &Sleef_log##suffix>, &over_array<Lanes, &Sleef_exp##suffix>,            \
        &over_array<Lanes, &Sleef_sin##suffix, true, true>,                                    \
        &over_array<Lanes, &Sleef_cos##suffix, false, true>,                                   \
        &over_array<Lanes, &Sleef_tan##suffix, true, true>,                                    \
        &over_array<Lanes, &Sleef_asin##suffix, true>,                                         \
        &over_array<Lanes, &Sleef_acos##suffix>, &over_array<Lanes, &Sleef_atan##suffix, true>,\
        &over_array<Lanes, &Sleef_sinh##suffix, true>, &over_array<Lanes, &Sleef_cosh##suffix>,\
        &over_array<Lanes, &Sleef_tanh##suffix, true>                                          \
  }
