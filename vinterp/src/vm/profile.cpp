#include "profile.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace vm {

Profile::Profile() {
  // The smallest of many back-to-back clock reads: what timing an empty instruction costs.
  double best = 1.0;
  for (int i = 0; i < 1000; ++i) {
    auto a = std::chrono::steady_clock::now();
    auto b = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(b - a).count());
  }
  clock_overhead_ = best;
}

void Profile::print(std::FILE* out, double wall_seconds) const {
  std::vector<std::size_t> order;
  Row total;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].count == 0) continue;
    order.push_back(i);
    total.count += rows_[i].count;
    total.seconds += rows_[i].seconds;
    total.elements += rows_[i].elements;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return rows_[a].seconds > rows_[b].seconds; });
  std::fprintf(out, "%-12s %12s %12s %8s %12s %16s\n", "opcode", "count", "time s", "time %",
               "ns/op", "elements");
  for (std::size_t i : order) {
    const Row& r = rows_[i];
    std::fprintf(out, "%-12.*s %12llu %12.6f %7.2f%% %12.1f %16llu\n",
                 int(vcode::op_table[i].spelling.size()), vcode::op_table[i].spelling.data(),
                 (unsigned long long)r.count, r.seconds,
                 total.seconds > 0 ? 100.0 * r.seconds / total.seconds : 0.0,
                 1e9 * r.seconds / double(r.count), (unsigned long long)r.elements);
  }
  std::fprintf(out, "%-12s %12llu %12.6f %7.2f%% %12.1f %16llu\n", "total",
               (unsigned long long)total.count, total.seconds, 100.0,
               total.count ? 1e9 * total.seconds / double(total.count) : 0.0,
               (unsigned long long)total.elements);
  std::fprintf(out, "wall time %.6f s (including the final stack dump); clock overhead %.1f ns "
               "per instruction subtracted\n", wall_seconds, 1e9 * clock_overhead_);
}

}  // namespace vm
