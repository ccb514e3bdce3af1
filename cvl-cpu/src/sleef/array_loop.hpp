// The loop every per-instruction-set file instantiates: whole vectors of `Lanes::width` doubles,
// then the tail through a padded buffer (the padding is computed and thrown away). Included only
// by those files, inside their anonymous namespace.
#pragma once

template <class Lanes, auto F>  // F: SLEEF's function of Lanes::V
void over_array(std::size_t n, const double* in, double* out) {
  constexpr std::size_t w = Lanes::width;
  std::size_t i = 0;
  for (; i + w <= n; i += w) Lanes::store(out + i, F(Lanes::load(in + i)));
  if (i == n) return;
  alignas(64) double tail[w] = {};
  for (std::size_t t = 0; i + t < n; ++t) tail[t] = in[i + t];
  Lanes::store(tail, F(Lanes::load(tail)));
  for (std::size_t t = 0; i + t < n; ++t) out[i + t] = tail[t];
}

// A table in the order of Transcendental, from SLEEF's names with the given suffix.
#define CVL_SLEEF_TABLE(Lanes, suffix)                                                         \
  {                                                                                            \
    &over_array<Lanes, &Sleef_log##suffix>, &over_array<Lanes, &Sleef_exp##suffix>,            \
        &over_array<Lanes, &Sleef_sin##suffix>, &over_array<Lanes, &Sleef_cos##suffix>,        \
        &over_array<Lanes, &Sleef_tan##suffix>, &over_array<Lanes, &Sleef_asin##suffix>,       \
        &over_array<Lanes, &Sleef_acos##suffix>, &over_array<Lanes, &Sleef_atan##suffix>,      \
        &over_array<Lanes, &Sleef_sinh##suffix>, &over_array<Lanes, &Sleef_cosh##suffix>,      \
        &over_array<Lanes, &Sleef_tanh##suffix>                                                \
  }
