// Which vectors provably have equal lengths: a union-find over "length of v" (for a segment
// descriptor, its number of segments) and "sum of v" (a scalar's value; a descriptor's total),
// fed by facts that hold by construction or once an earlier checked op has run. Unions can be
// rolled back, so facts learned inside an IF branch stay there.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fopt/ir.hpp"

namespace fopt {

class LengthFacts {
 public:
  using Node = std::uint64_t;
  static constexpr Node one = 0;  // the length 1 of a scalar
  static Node length(VarId v) { return 2 * Node(v) + 1; }
  static Node sum(VarId v) { return 2 * Node(v) + 2; }

  Node find(Node n) const;
  void unite(Node a, Node b);
  bool same(Node a, Node b) const { return find(a) == find(b); }

  std::size_t mark() const { return undo_.size(); }
  void rollback(std::size_t mark);

  // Facts that hold once `stmt` has run: how its results relate to its operands (always), and
  // what its run checked about its operands (with `checked`; these hold only after it ran).
  void learn(const Stmt& stmt, bool checked = true);

  // Whether every length relation `stmt` checks when it runs is already known to hold, so that
  // it cannot fail by a length mismatch.
  bool checks_hold(const Stmt& stmt) const;

  // FUSED statements name these definitions (a module's, after fuse): learn and checks_hold then
  // know their relations too; without, they know none.
  void know_superops(const std::vector<vcode::SuperOp>& superops) { superops_ = &superops; }

 private:
  struct Entry {
    Node parent;
    std::uint32_t rank;
  };
  std::unordered_map<Node, Entry> nodes_;
  struct Undo {
    Node child;
    Node root;  // whose rank may have grown
    std::uint32_t old_rank;
  };
  std::vector<Undo> undo_;
  const std::vector<vcode::SuperOp>* superops_ = nullptr;
};

}  // namespace fopt
