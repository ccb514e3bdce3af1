// Hand-written quickhull (neslgpu-bench/quickhull): m = round(4 n / pi) points with
// x = rand(2.0) - 1 and y = rand(2.0) - 1 (all x first, then all y), of which those strictly
// inside the unit circle are kept (about n). The timed region is the convex hull; the program
// prints the hull's first point (x, then y), then the time.
//
// The same algorithm as the NESL program: the hull runs from the leftmost point to the rightmost
// (hsplit) and back; hsplit keeps the points strictly left of the line p1 -> p2, and where two or
// more remain recurses on both sides of the farthest one (in parallel: OpenMP tasks). Hull
// points come out in the NESL program's order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common.hpp"

namespace {

struct Point {
  double x, y;
};

// The NESL program's cross_product(p, (p1, p2)): positive when p is left of p1 -> p2.
inline double cross(const Point& p, const Point& p1, const Point& p2) {
  return (p1.x - p.x) * (p2.y - p.y) - (p1.y - p.y) * (p2.x - p.x);
}

constexpr size_t parallel_cutoff = 50000;  // below this many points, one thread per hsplit

// Appends to `hull` the hull points from p1 (included) towards p2 (excluded) among `points`.
void hsplit(const std::vector<Point>& points, Point p1, Point p2, std::vector<Point>& hull) {
  // One pass: the points left of the line, and the farthest of them (the first, on a tie).
  std::vector<Point> left;
  double best = 0;
  Point farthest{};
  if (points.size() >= parallel_cutoff) {
    const int chunks = 64;
    std::vector<std::vector<Point>> parts(chunks);
    std::vector<double> part_best(chunks, 0);
    std::vector<Point> part_farthest(chunks);
#pragma omp taskloop default(shared) grainsize(1)
    for (int c = 0; c < chunks; ++c) {
      const size_t begin = points.size() * c / chunks, end = points.size() * (c + 1) / chunks;
      for (size_t i = begin; i < end; ++i) {
        const double d = cross(points[i], p1, p2);
        if (d > 0) {
          parts[c].push_back(points[i]);
          if (d > part_best[c]) part_best[c] = d, part_farthest[c] = points[i];
        }
      }
    }
    size_t total = 0;
    for (auto& part : parts) total += part.size();
    left.reserve(total);
    for (int c = 0; c < chunks; ++c) {
      left.insert(left.end(), parts[c].begin(), parts[c].end());
      if (part_best[c] > best) best = part_best[c], farthest = part_farthest[c];
    }
  } else {
    for (const auto& p : points) {
      const double d = cross(p, p1, p2);
      if (d > 0) {
        left.push_back(p);
        if (d > best) best = d, farthest = p;
      }
    }
  }
  if (left.size() < 2) {
    hull.push_back(p1);
    hull.insert(hull.end(), left.begin(), left.end());
    return;
  }
  std::vector<Point> second;
#pragma omp task default(shared) if (left.size() >= parallel_cutoff)
  hsplit(left, farthest, p2, second);
  hsplit(left, p1, farthest, hull);
#pragma omp taskwait
  hull.insert(hull.end(), second.begin(), second.end());
}

std::vector<Point> convex_hull(const std::vector<Point>& points) {
  // The first leftmost and the first rightmost point, as NESL's min_index and max_index.
  size_t min_i = 0, max_i = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    if (points[i].x < points[min_i].x) min_i = i;
    if (points[i].x > points[max_i].x) max_i = i;
  }
  std::vector<Point> hull, back;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task default(shared)
    hsplit(points, points[max_i], points[min_i], back);
    hsplit(points, points[min_i], points[max_i], hull);
#pragma omp taskwait
  }
  hull.insert(hull.end(), back.begin(), back.end());
  return hull;
}

// --verify's reference: Andrew's monotone chain, strictly convex vertices, counterclockwise from
// the lowest-x point.
std::vector<Point> monotone_chain(std::vector<Point> points) {
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  std::vector<Point> hull(2 * points.size());
  size_t k = 0;
  auto turn = [](const Point& o, const Point& a, const Point& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  };
  for (size_t i = 0; i < points.size(); ++i) {
    while (k >= 2 && turn(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  for (size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && turn(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  hull.resize(k - 1);
  return hull;
}

// Both hulls as one vector of coordinates, starting at the leftmost point, in the same turning
// direction (the NESL program's goes clockwise: lower hull first, seen from p1 -> p2 "left").
std::vector<double> coordinates(std::vector<Point> hull, bool reverse) {
  if (reverse) std::reverse(hull.begin(), hull.end());
  const auto first = std::min_element(hull.begin(), hull.end(), [](const Point& a, const Point& b) {
    return a.x < b.x;
  });
  std::rotate(hull.begin(), first, hull.end());
  std::vector<double> out;
  for (const auto& p : hull) out.insert(out.end(), {p.x, p.y});
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = baseline::parse_options(argc, argv, "baseline_quickhull", 5000000);
  const long m = static_cast<long>(4.0 * static_cast<double>(options.size) / 3.141592653589793 + 0.5);
  std::vector<double> xs(m), ys(m);
  for (auto& x : xs) x = baseline::nesl_rand_float(2.0) - 1.0;
  for (auto& y : ys) y = baseline::nesl_rand_float(2.0) - 1.0;
  std::vector<Point> points;
  for (long i = 0; i < m; ++i)
    if (xs[i] * xs[i] + ys[i] * ys[i] < 1.0) points.push_back({xs[i], ys[i]});
  if (points.size() < 2) baseline::fail("baseline_quickhull", "not enough points (use a larger --size)");
  baseline::warm_up_threads();

  const baseline::Timer timer;
  const auto hull = convex_hull(points);
  const double seconds = timer.seconds();

  bool ok = true;
  if (options.verify) ok = baseline::agree("hull", coordinates(hull, true), coordinates(monotone_chain(points), false));
  baseline::print_float(hull[0].x);
  baseline::print_float(hull[0].y);
  baseline::print_float(seconds);
  return ok ? 0 : 1;
}
