// Hand-written dotp (neslgpu-bench/dotp): two vectors of n floats, float(rand(100)) each, drawn
// in that order; the timed region is the dot product, printed with the time.
#include <vector>

#include "common.hpp"

int main(int argc, char** argv) {
  const auto options = baseline::parse_options(argc, argv, "baseline_dotp", 50000000);
  const long n = options.size;
  std::vector<double> a(n), b(n);
  for (auto& x : a) x = baseline::nesl_rand_int(100);
  for (auto& x : b) x = baseline::nesl_rand_int(100);

  baseline::warm_up_threads();
  const baseline::Timer timer;
  double sum = 0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static)
  for (long i = 0; i < n; ++i) sum += a[i] * b[i];
  const double seconds = timer.seconds();

  bool ok = true;
  if (options.verify) {
    double serial = 0;  // left to right, as the classic's +_REDUCE
    for (long i = 0; i < n; ++i) serial += a[i] * b[i];
    ok = baseline::agree("dotp", {sum}, {serial});
  }
  baseline::print_float(sum);
  baseline::print_float(seconds);
  return ok ? 0 : 1;
}
