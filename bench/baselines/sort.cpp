// Hand-written qs (neslgpu-bench/qs): n integers rand(100), sorted; the program prints the first
// element of the sorted vector, then the time of the sort.
//
// The same algorithm as the NESL program: quicksort around the middle element, three ways
// (less, equal, greater), the two outer parts sorted in parallel (OpenMP tasks), here in place;
// below a cutoff a part is left to std::sort.
#include <algorithm>
#include <vector>

#include "common.hpp"

namespace {

constexpr long serial_cutoff = 2048;   // std::sort below this many elements
constexpr long task_cutoff = 100000;   // no new task below this many elements

void quicksort(int* begin, int* end) {
  const long n = end - begin;
  if (n <= serial_cutoff) {
    std::sort(begin, end);
    return;
  }
  const int pivot = begin[n / 2];
  // Dutch national flag: [begin, less) < pivot, [less, i) == pivot, [greater, end) > pivot.
  int *less = begin, *i = begin, *greater = end;
  while (i < greater) {
    if (*i < pivot) {
      std::swap(*less++, *i++);
    } else if (*i > pivot) {
      std::swap(*i, *--greater);
    } else {
      ++i;
    }
  }
#pragma omp task if (less - begin > task_cutoff) default(none) firstprivate(begin, less)
  quicksort(begin, less);
  quicksort(greater, end);
#pragma omp taskwait
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = baseline::parse_options(argc, argv, "baseline_sort", 10000000);
  const long n = options.size;
  std::vector<int> keys(n);
  for (auto& x : keys) x = baseline::nesl_rand_int(100);
  const std::vector<int> input = options.verify ? keys : std::vector<int>();
  baseline::warm_up_threads();

  const baseline::Timer timer;
#pragma omp parallel
#pragma omp single
  quicksort(keys.data(), keys.data() + n);
  const double seconds = timer.seconds();

  bool ok = true;
  if (options.verify) {
    auto reference = input;
    std::sort(reference.begin(), reference.end());
    ok = baseline::agree("sort", std::vector<double>(keys.begin(), keys.end()),
                         std::vector<double>(reference.begin(), reference.end()));
  }
  baseline::print_int(keys[0]);
  baseline::print_float(seconds);
  return ok ? 0 : 1;
}
