// Hand-written bh (neslgpu-bench/bh): one Barnes-Hut step in 3-D with quadrupole moments. n
// bodies of mass 1 at x, y, z = rand(10.0) - 5 (each a vector of n, drawn in that order; the
// program then draws 3 velocity vectors, which the step does not use). The timed region builds
// the octree and computes every body's acceleration; the program prints how many (body, cell)
// interactions the step computed, then the time.
//
// The same algorithm as the NESL program: the root cell is the bodies' bounding box; a cell of
// two or more bodies splits at its middle into the non-empty octants (a body on a middle plane
// goes to the upper side); a cell's mass, centre of mass and quadrupole moment come from its
// children (Q = sum of Q_child + m (3 d d^T - |d|^2 I), d = child centre - cell centre). A body
// takes a cell as one interaction when the cell holds one body or the cell's longest side is less
// than theta = 0.5 times the distance from the body to the cell's centre of mass; otherwise it
// opens the cell. The acceleration of one interaction, with r = body - centre:
//   a = -m r / |r|^3 + (Q r) / |r|^5 - 2.5 (r . Q r) r / |r|^7, and 0 when r = 0 (itself).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common.hpp"

namespace {

constexpr double theta = 0.5;

using Vec3 = std::array<double, 3>;

struct Cell {
  double mass = 0;
  Vec3 centre{};               // centre of mass
  std::array<double, 6> q{};   // quadrupole moment: xx, yy, zz, xy, xz, yz
  double longest_side = 0;
  int bodies = 0;
  int first_child = -1, children = 0;  // children are consecutive cells
};

struct Tree {
  std::vector<Cell> cells;  // cells[0] is the root
};

// Builds the cell of bodies order[begin, end) inside the box (corner, side) into tree.cells[at].
void build(Tree& tree, int at, std::vector<int>& order, int begin, int end, Vec3 corner, Vec3 side,
           const std::vector<Vec3>& pos) {
  Cell cell;
  cell.bodies = end - begin;
  cell.longest_side = std::max({side[0], side[1], side[2]});
  if (cell.bodies == 1) {
    cell.mass = 1.0;
    cell.centre = pos[order[begin]];
    tree.cells[at] = cell;
    return;
  }
  Vec3 half, middle;
  for (int d = 0; d < 3; ++d) half[d] = side[d] / 2.0, middle[d] = corner[d] + half[d];
  auto octant = [&](int body) {
    const auto& p = pos[body];
    return (p[0] >= middle[0] ? 1 : 0) | (p[1] >= middle[1] ? 2 : 0) | (p[2] >= middle[2] ? 4 : 0);
  };
  // Bodies grouped by octant (a stable counting sort of this range).
  std::array<int, 9> start{};
  for (int i = begin; i < end; ++i) ++start[octant(order[i]) + 1];
  for (int o = 0; o < 8; ++o) start[o + 1] += start[o];
  std::vector<int> grouped(cell.bodies);
  auto next = start;
  for (int i = begin; i < end; ++i) grouped[next[octant(order[i])]++] = order[i];
  std::copy(grouped.begin(), grouped.end(), order.begin() + begin);

  cell.first_child = static_cast<int>(tree.cells.size());
  for (int o = 0; o < 8; ++o) cell.children += start[o + 1] > start[o];
  tree.cells.resize(tree.cells.size() + cell.children);
  int child = cell.first_child;
  for (int o = 0; o < 8; ++o) {
    if (start[o + 1] == start[o]) continue;
    Vec3 child_corner;
    for (int d = 0; d < 3; ++d) child_corner[d] = corner[d] + ((o >> d) & 1 ? half[d] : 0.0);
    build(tree, child++, order, begin + start[o], begin + start[o + 1], child_corner, half, pos);
  }
  // Mass and centre of mass, then the quadrupole moment about that centre.
  for (int c = cell.first_child; c < cell.first_child + cell.children; ++c) {
    const Cell& k = tree.cells[c];
    cell.mass += k.mass;
    for (int d = 0; d < 3; ++d) cell.centre[d] += k.mass * k.centre[d];
  }
  for (int d = 0; d < 3; ++d) cell.centre[d] /= cell.mass;
  for (int c = cell.first_child; c < cell.first_child + cell.children; ++c) {
    const Cell& k = tree.cells[c];
    const Vec3 r{k.centre[0] - cell.centre[0], k.centre[1] - cell.centre[1], k.centre[2] - cell.centre[2]};
    const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    const std::array<double, 6> moment{3 * r[0] * r[0] - r2, 3 * r[1] * r[1] - r2, 3 * r[2] * r[2] - r2,
                                       3 * r[0] * r[1],      3 * r[0] * r[2],      3 * r[1] * r[2]};
    for (int j = 0; j < 6; ++j) cell.q[j] += k.q[j] + k.mass * moment[j];
  }
  tree.cells[at] = cell;
}

Tree build_tree(const std::vector<Vec3>& pos) {
  Vec3 low = pos[0], high = pos[0];
  for (const auto& p : pos)
    for (int d = 0; d < 3; ++d) low[d] = std::min(low[d], p[d]), high[d] = std::max(high[d], p[d]);
  Tree tree;
  tree.cells.reserve(4 * pos.size());
  tree.cells.resize(1);
  std::vector<int> order(pos.size());
  for (size_t i = 0; i < pos.size(); ++i) order[i] = static_cast<int>(i);
  build(tree, 0, order, 0, static_cast<int>(pos.size()), low,
        {high[0] - low[0], high[1] - low[1], high[2] - low[2]}, pos);
  return tree;
}

// One interaction: the acceleration of a body at p from cell c.
inline void interact(const Vec3& p, const Cell& c, Vec3& acc) {
  const Vec3 r{p[0] - c.centre[0], p[1] - c.centre[1], p[2] - c.centre[2]};
  const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (r2 == 0) return;
  const double inv_r = 1.0 / std::sqrt(r2), inv_r2 = inv_r * inv_r;
  const double inv_r3 = inv_r * inv_r2, inv_r5 = inv_r3 * inv_r2;
  const auto& q = c.q;
  const Vec3 qr{q[0] * r[0] + q[3] * r[1] + q[4] * r[2], q[3] * r[0] + q[1] * r[1] + q[5] * r[2],
                q[4] * r[0] + q[5] * r[1] + q[2] * r[2]};
  const double rqr = r[0] * qr[0] + r[1] * qr[1] + r[2] * qr[2];
  for (int d = 0; d < 3; ++d)
    acc[d] += -c.mass * r[d] * inv_r3 + qr[d] * inv_r5 - 2.5 * rqr * r[d] * inv_r5 * inv_r2;
}

inline bool well_separated(const Vec3& p, const Cell& c) {
  if (c.bodies == 1) return true;
  const double dx = p[0] - c.centre[0], dy = p[1] - c.centre[1], dz = p[2] - c.centre[2];
  return c.longest_side < theta * std::sqrt(dx * dx + dy * dy + dz * dz);
}

// Walks the tree for one body; returns the number of interactions.
long accelerate(const Tree& tree, const Vec3& p, Vec3& acc, std::vector<int>& stack) {
  long interactions = 0;
  stack.assign(1, 0);
  while (!stack.empty()) {
    const Cell& c = tree.cells[stack.back()];
    stack.pop_back();
    if (well_separated(p, c)) {
      interact(p, c, acc);
      ++interactions;
    } else {
      for (int k = c.first_child; k < c.first_child + c.children; ++k) stack.push_back(k);
    }
  }
  return interactions;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = baseline::parse_options(argc, argv, "baseline_barnes_hut", 20000);
  const long n = options.size;
  std::vector<Vec3> pos(n);
  for (int d = 0; d < 3; ++d)
    for (auto& p : pos) p[d] = baseline::nesl_rand_float(10.0) - 5.0;
  std::vector<Vec3> acc(n, Vec3{0, 0, 0});
  baseline::warm_up_threads();

  const baseline::Timer timer;
  const Tree tree = build_tree(pos);
  long interactions = 0;
#pragma omp parallel reduction(+ : interactions)
  {
    std::vector<int> stack;
#pragma omp for schedule(dynamic, 64)
    for (long i = 0; i < n; ++i) interactions += accelerate(tree, pos[i], acc[i], stack);
  }
  const double seconds = timer.seconds();

  bool ok = true;
  if (options.verify) {
    // Every body's acceleration against the direct sum over all other bodies: the tree's error
    // at theta = 0.5 with quadrupoles is about 0.1% (rms; without them 0.3-0.5%).
    double worst = 0, error2 = 0, size2 = 0;
    for (long i = 0; i < n; ++i) {
      Vec3 direct{0, 0, 0};
      for (long j = 0; j < n; ++j) {
        if (i == j) continue;
        const Vec3 r{pos[i][0] - pos[j][0], pos[i][1] - pos[j][1], pos[i][2] - pos[j][2]};
        const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        const double inv_r3 = 1.0 / (r2 * std::sqrt(r2));
        for (int d = 0; d < 3; ++d) direct[d] -= r[d] * inv_r3;
      }
      double e2 = 0, s2 = 0;
      for (int d = 0; d < 3; ++d) e2 += (acc[i][d] - direct[d]) * (acc[i][d] - direct[d]), s2 += direct[d] * direct[d];
      worst = std::max(worst, std::sqrt(e2 / s2));
      error2 += e2, size2 += s2;
    }
    const double rms = std::sqrt(error2 / size2);
    ok = rms < 0.002 && worst < 0.05;
    std::fprintf(stderr, "verify bh: %s, %ld bodies, %ld interactions (direct: %ld); relative error of the "
                 "accelerations against the direct sum: rms %.3g, largest %.3g\n",
                 ok ? "ok" : "FAILED", n, interactions, n * n, rms, worst);
  }
  baseline::print_int(interactions);
  baseline::print_float(seconds);
  return ok ? 0 : 1;
}
